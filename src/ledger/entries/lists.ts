import { currencyKey } from '../../core/currencyKeys.js';
import type { LedgerEntriesFilterSet, LedgerLinesFilterSet } from '../../../generated/ledger.js';
import { listFilter, MAX_FILTER_LIST, pairFilter, valueFilter } from '../../core/entryFilters.js';
import { DomainError } from '../../core/errors.js';
import { parseUtcOffset } from '../../core/time.js';
import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import { findLedgerEntry } from '../../db/ledgerEntries.js';
import type { LedgerRow } from '../../db/ledgers.js';
import { pageEntries, pageLines, type EntryListFilter, type LineListFilter } from '../../db/ledgerLists.js';
import { findAccountByMatch } from '../accounts/findAccount.js';
import type { GqlContext } from '../context.js';

// Entry and line lists of a ledger or an account, newest `posted` first, with their filter sets.

type PageArgs = { first?: number | null; last?: number | null; after?: string | null; before?: string | null };

function bounded<T>(equalTo: T | null | undefined, list: readonly T[] | null | undefined, field: string): T[] {
  if ((list?.length ?? 0) > MAX_FILTER_LIST)
    throw new DomainError('invalid_input_provided', `The ${field} filter takes at most ${MAX_FILTER_LIST} values.`);
  return [...(equalTo != null ? [equalTo] : []), ...(list ?? [])];
}

const offsetOf = (ledger: LedgerRow) => parseUtcOffset(ledger.balanceUtcOffset) ?? 0;

export async function listEntries(
  ctx: GqlContext,
  ledger: LedgerRow,
  args: PageArgs & { filter?: LedgerEntriesFilterSet | null },
  account?: LedgerAccountRow,
  list = account ? `account-entries:${account.id}` : `ledger-entries:${ledger.id}`,
) {
  const set = args.filter;
  const filter: EntryListFilter = { ...listFilter(set, offsetOf(ledger)), ledgerId: ledger.id, accountId: account?.id };
  if (set?.group) filter.groups = pairFilter(set.group, 'group');
  if (set?.type) filter.types = valueFilter(set.type, 'type');
  if (set?.typeVersion) filter.typeVersions = valueFilter(set.typeVersion, 'typeVersion');
  if (set?.ledgerEntry) {
    const matches = bounded(set.ledgerEntry.equalTo, set.ledgerEntry.in, 'ledgerEntry');
    const found = await Promise.all(
      matches.map((match) =>
        findLedgerEntry(ctx.sql, ledger.workspaceId, {
          id: match.id ?? undefined,
          ik: match.ik ?? undefined,
          ledgerId: ledger.id,
        }),
      ),
    );
    filter.entryIds = found.flatMap((entry) => (entry ? [entry.id] : []));
  }
  const entryPages = ctx.pages(list);
  const request = entryPages.request(args);
  const rows = await pageEntries(ctx.sql, ledger.workspaceId, filter, request);
  return entryPages.page(request, rows, (entry) => [entry.postedMicros, entry.id]);
}

export async function listLines(
  ctx: GqlContext,
  ledger: LedgerRow,
  args: PageArgs & { filter?: LedgerLinesFilterSet | null },
  account?: LedgerAccountRow,
) {
  const set = args.filter;
  if (account && (set?.ledgerAccount || set?.path)) {
    throw new DomainError(
      'invalid_input_provided',
      "An account's own lines take neither the ledgerAccount nor the path filter.",
    );
  }
  if (!account && !set?.ledgerAccount && !set?.path) {
    throw new DomainError('invalid_input_provided', 'Ledger lines need a ledgerAccount or a path filter.');
  }
  const filter: LineListFilter = { ...listFilter(set, offsetOf(ledger)), ledgerId: ledger.id };
  if (account) filter.accountIds = [account.id];
  if (set?.ledgerAccount) {
    const matches = bounded(set.ledgerAccount.equalTo, set.ledgerAccount.in, 'ledgerAccount');
    const found = await Promise.all(
      matches.map((match) =>
        findAccountByMatch(
          ctx.sql,
          ledger.workspaceId,
          match.ledger || match.id ? match : { ...match, ledger: { id: ledger.id } },
        ),
      ),
    );
    filter.accountIds = found.flatMap((row) => (row && row.ledgerId === ledger.id ? [row.id] : []));
  }
  if (set?.path) {
    const { equalTo, in: list, matches, matchesAny, contains } = set.path;
    const likeText = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
    filter.pathPatterns = [
      ...bounded(equalTo, list, 'path').map(likeText),
      ...bounded(matches, matchesAny, 'path').map((pattern) => likeText(pattern).replaceAll('*', '%')),
      ...(contains != null ? [`%${likeText(contains)}%`] : []),
    ];
  }
  if (set?.currency) {
    filter.currencies = bounded(set.currency.equalTo, set.currency.in, 'currency').map((currency) =>
      currencyKey(currency),
    );
  }
  if (set?.key) filter.keys = valueFilter(set.key, 'key');
  if (set?.type) filter.directions = bounded(set.type.equalTo, set.type.in, 'type');
  const linePages = ctx.pages(account ? `account-lines:${account.id}` : `ledger-lines:${ledger.id}`);
  const request = linePages.request(args);
  const rows = await pageLines(ctx.sql, ledger.workspaceId, filter, request);
  return linePages.page(request, rows, (line) => [line.postedMicros, line.id]);
}
