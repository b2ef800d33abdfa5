import type { BalanceRowKey, EntryPosting } from '../../db/ledgerEntries.js';
import type { PreparedEntry } from './prepareEntry.js';

/**
 * The balance rows an entry updates under a lock, which a transaction posting several entries
 * takes first, in one global order: lines of its strong accounts and of the accounts its
 * conditions bound (apply_balance_deltas' rule). An account it cannot tell (one created for the
 * posting) counts as strong. Eventual accounts' rows are not locked: their deltas are queued.
 */
export function lockedBalanceRows(prepared: PreparedEntry, posting: EntryPosting = prepared.posting): BalanceRowKey[] {
  const { workspaceId } = posting;
  const bounded = new Set(posting.conditions.map((condition) => condition.accountId));
  return posting.lines
    .filter(
      (line) =>
        bounded.has(line.accountId) ||
        prepared.accounts.get(line.accountId)?.consistency.ownBalanceUpdates !== 'eventual',
    )
    .map((line) => ({ workspaceId, accountId: line.accountId, currency: line.currency }));
}
