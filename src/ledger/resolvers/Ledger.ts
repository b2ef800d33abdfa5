import type { LedgerResolvers } from '../../../generated/ledger.js';
import { pageLedgerAccounts } from '../../db/ledgerAccounts.js';
import { findSchema } from '../../db/ledgerSchemas.js';
import { accountFilter } from '../accounts/accountFilter.js';
import { listEntries, listLines } from '../entries/lists.js';
import { listGroups } from '../groups/groupLists.js';
import { findGroup } from '../../db/ledgerGroups.js';
import { pageLedgerMigrations } from '../../db/ledgerMigrations.js';
import { accountDataMigrations, entryDataMigrations, entryStats } from '../schemas/migrationLists.js';

export const Ledger: LedgerResolvers = {
  type: (row) => row.type,
  created: (row) => row.created.toISOString(),
  balanceUTCOffset: (row) => row.balanceUtcOffset,
  dashboardUrl: (row, _args, ctx) => ctx.dashboardUrl({ page: 'ledger', ledgerId: row.id }),
  // A ledger created on a given schema version reports that version.
  schema: async (row, _args, { sql }) => {
    const schema = row.schemaKey ? await findSchema(sql, row.workspaceId, row.schemaKey) : undefined;
    return schema ? { ...schema, requestedVersion: row.schemaVersion ?? undefined } : null;
  },
  ledgerAccounts: async (row, args, { sql, pages }) => {
    const accountPages = pages(`ledger-accounts:${row.id}`);
    const request = accountPages.request(args);
    const filter = await accountFilter(sql, row, args.filter);
    const rows = filter ? await pageLedgerAccounts(sql, row.workspaceId, request, filter) : [];
    return accountPages.page(request, rows, (account) => [account.created.toISOString(), account.id]);
  },
  ledgerEntries: (row, args, ctx) => listEntries(ctx, row, args),
  lines: (row, args, ctx) => listLines(ctx, row, args),
  // A group no entry carries yet is empty, not missing: its lists and balances are empty.
  ledgerEntryGroup: async (row, args, { sql }) => {
    const { key, value } = args.ledgerEntryGroup;
    return (
      (await findGroup(sql, row.workspaceId, row.id, key, value)) ?? {
        workspaceId: row.workspaceId,
        ledgerId: row.id,
        key,
        value,
        created: null,
      }
    );
  },
  ledgerEntryGroups: (row, args, ctx) => listGroups(ctx, row, args),
  migrations: async (row, args, { sql, pages }) => {
    const migrationPages = pages(`ledger-migrations:${row.id}`);
    const request = migrationPages.request(args);
    const rows = await pageLedgerMigrations(sql, row.workspaceId, row.id, request);
    return migrationPages.page(request, rows, (migration) => [String(migration.schemaVersion)]);
  },
  ledgerEntryDataMigrations: (row, args, ctx) => entryDataMigrations(ctx, row, args),
  ledgerAccountDataMigrations: (row, args, ctx) => accountDataMigrations(ctx, row, args),
  entryStats: (row, args, ctx) => entryStats(ctx, row, args),
};
