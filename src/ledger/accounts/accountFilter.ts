import type { LedgerAccountFilter, LedgerAccountsFilterSet } from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import type { AccountFilter } from '../../db/ledgerAccounts.js';
import type { LedgerRow } from '../../db/ledgers.js';
import type { Db } from '../../db/sql.js';
import { findExternalAccount } from '../../db/links.js';
import { externalAccountMatch } from '../links/externalAccountMatch.js';
import { findAccountByMatch } from './findAccount.js';

const MAX_LIST = 100;

/**
 * A LedgerAccountsFilterSet as a query filter (conditions AND together), or undefined when it
 * cannot match anything: Tally tracks no clearing status or posted window, so those match none.
 */
export async function accountFilter(
  db: Db,
  ledger: LedgerRow,
  set: LedgerAccountsFilterSet | null | undefined,
): Promise<AccountFilter | undefined> {
  const filter: AccountFilter = { ledgerId: ledger.id };
  if (!set) return filter;
  if (set.clearingStatus || set.earliestPosted || set.latestPosted) return undefined;
  if (set.isLinkedAccount != null) filter.linked = set.isLinkedAccount;
  if (set.linkedAccount) {
    const matches = listOf(set.linkedAccount.equalTo, set.linkedAccount.in, 'linkedAccount');
    const found = await Promise.all(
      matches.map((match) => findExternalAccount(db, ledger.workspaceId, externalAccountMatch(match, 'linkedAccount'))),
    );
    filter.linkedAccountIds = found.flatMap((account) => (account ? [account.id] : []));
  }
  if (set.type) filter.types = listOf(set.type.equalTo, set.type.in, 'type');
  if (set.hasParentLedgerAccount != null) filter.hasParent = set.hasParentLedgerAccount;
  if (set.ledgerAccount) filter.ids = await accountIds(db, ledger, set.ledgerAccount, 'ledgerAccount');
  if (set.parentLedgerAccount)
    filter.parentIds = await accountIds(db, ledger, set.parentLedgerAccount, 'parentLedgerAccount');
  if (set.path) {
    const { equalTo, in: paths, contains, matches, matchesAny } = set.path;
    if (equalTo != null || paths != null) filter.paths = listOf(equalTo, paths, 'path');
    if (matches != null || matchesAny != null)
      filter.pathPatterns = listOf(matches, matchesAny, 'path').map(likePattern);
    if (contains != null) filter.pathContains = contains;
  }
  return filter;
}

function listOf<T>(equalTo: T | null | undefined, list: readonly T[] | null | undefined, field: string): T[] {
  const values = [...(equalTo != null ? [equalTo] : []), ...(list ?? [])];
  if ((list?.length ?? 0) > MAX_LIST)
    throw new DomainError('invalid_input_provided', `The ${field} filter takes at most ${MAX_LIST} values.`);
  return values;
}

async function accountIds(db: Db, ledger: LedgerRow, condition: LedgerAccountFilter, field: string): Promise<string[]> {
  const matches = listOf(condition.equalTo, condition.in, field);
  const ids: string[] = [];
  for (const match of matches) {
    const account = await findAccountByMatch(
      db,
      ledger.workspaceId,
      match.ledger || match.id ? match : { ...match, ledger: { id: ledger.id } },
    );
    if (account && account.ledgerId === ledger.id) ids.push(account.id);
  }
  return ids;
}

/** `*` stands for any text; SQL LIKE's own wildcards in the pattern match only themselves. */
function likePattern(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (ch) => `\\${ch}`).replaceAll('*', '%');
}
