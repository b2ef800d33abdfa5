import type {
  LedgerAccountDataMigrationsFilterSet,
  LedgerDataMigrationStatus,
  LedgerEntryDataMigrationsFilterSet,
  StringFilter,
} from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import { pageInMemory, type PageArgs } from '../../core/pagination.js';
import { entryStatsOfLedger } from '../../db/entryStats.js';
import type { LedgerRow } from '../../db/ledgers.js';
import { pageEntries, type EntryListFilter } from '../../db/ledgerLists.js';
import { dataMigrationsOfLedger, type DataMigrationRow } from '../../db/ledgerMigrations.js';
import type { GqlContext } from '../context.js';

// The short per-ledger lists of schema bookkeeping (data migrations, entry stats): read whole,
// filtered and paged in memory by their natural key.

const MAX_FILTER_LIST = 100;

function matchesString(value: string, filter: StringFilter | null | undefined, field: string): boolean {
  if (!filter) return true;
  if ((filter.in?.length ?? 0) > MAX_FILTER_LIST || (filter.notIn?.length ?? 0) > MAX_FILTER_LIST) {
    throw new DomainError('invalid_input_provided', `The ${field} filter takes at most ${MAX_FILTER_LIST} values.`);
  }
  return (
    (filter.equalTo == null || value === filter.equalTo) &&
    (filter.in == null || filter.in.includes(value)) &&
    (filter.notEqualTo == null || value !== filter.notEqualTo) &&
    (filter.notIn == null || !filter.notIn.includes(value))
  );
}

/** A page of one of these lists, its page arguments checked before the rows are read. */
async function pageOf<T>(
  ctx: GqlContext,
  list: string,
  args: PageArgs,
  read: () => Promise<readonly T[]>,
  keyOf: (row: T) => string,
) {
  const pages = ctx.pages(list);
  const request = pages.request(args);
  return pageInMemory(pages, request, await read(), keyOf);
}

export const dataMigrationStatus = (row: DataMigrationRow): LedgerDataMigrationStatus =>
  row.remaining > 0 ? 'active' : 'inactive';

export async function entryDataMigrations(
  ctx: GqlContext,
  ledger: LedgerRow,
  args: PageArgs & { filter?: LedgerEntryDataMigrationsFilterSet | null },
) {
  const { filter } = args;
  const read = async () =>
    (await dataMigrationsOfLedger(ctx.sql, ledger.workspaceId, ledger.id, 'entry')).filter(
      (row) =>
        matchesString(row.entryType!, filter?.entryType, 'entryType') &&
        matchesString(String(row.typeVersion), filter?.typeVersion, 'typeVersion') &&
        (filter?.status == null || dataMigrationStatus(row) === filter.status),
    );
  return pageOf(ctx, `entry-data-migrations:${ledger.id}`, args, read, (row) => row.subject);
}

export async function accountDataMigrations(
  ctx: GqlContext,
  ledger: LedgerRow,
  args: PageArgs & { filter?: LedgerAccountDataMigrationsFilterSet | null },
) {
  const { filter } = args;
  const read = async () =>
    (await dataMigrationsOfLedger(ctx.sql, ledger.workspaceId, ledger.id, 'account')).filter(
      (row) =>
        matchesString(row.accountPath!, filter?.accountPath, 'accountPath') &&
        (filter?.status == null || dataMigrationStatus(row) === filter.status),
    );
  return pageOf(ctx, `account-data-migrations:${ledger.id}`, args, read, (row) => row.subject);
}

/** The standing entries a data migration still covers, newest posted first. */
export async function entriesToMigrate(ctx: GqlContext, row: DataMigrationRow, args: PageArgs) {
  const pages = ctx.pages(`data-migration-entries:${row.ledgerId}:${row.kind}:${row.subject}`);
  const request = pages.request(args);
  // Standing entries only: a migrated entry is reversed, and its replacement is written anew.
  const base: EntryListFilter = {
    ledgerId: row.ledgerId,
    postedIn: [],
    showHidden: true,
    isReversal: false,
    isReversed: false,
  };
  const filter: EntryListFilter =
    row.kind === 'entry'
      ? { ...base, types: { anyOf: [row.entryType!] }, typeVersions: { anyOf: [String(row.typeVersion)] } }
      : { ...base, accountChartPath: row.accountPath! };
  const rows = await pageEntries(ctx.sql, row.workspaceId, filter, request);
  return pages.page(request, rows, (entry) => [entry.postedMicros, entry.id]);
}

export async function entryStats(ctx: GqlContext, ledger: LedgerRow, args: PageArgs) {
  const read = async () =>
    (await entryStatsOfLedger(ctx.sql, ledger.workspaceId, ledger.id)).map((row) => ({
      ...row,
      ledgerId: ledger.id,
      schemaKey: ledger.schemaKey ?? '',
      netCount: (BigInt(row.count) - BigInt(row.reversalsCount)).toString(),
    }));
  // Type names are SafeStrings, which cannot hold '#', so `type#version` is an unambiguous key.
  return pageOf(
    ctx,
    `entry-stats:${ledger.id}`,
    args,
    read,
    (row) => `${row.type}#${String(row.typeVersion).padStart(10, '0')}`,
  );
}
