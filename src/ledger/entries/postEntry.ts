import { accountIdsByPath, insertLedgerAccounts, lockLedgerAccountCreation } from '../../db/ledgerAccounts.js';
import { lockBalances, postLedgerEntry, type EntryPosting, type PostingOutcome } from '../../db/ledgerEntries.js';
import { retryingDeadlocks } from '../../db/deadlocks.js';
import { transaction } from '../../db/rollback.js';
import type { Db, Sql } from '../../db/sql.js';
import { lockedBalanceRows } from './balanceLocks.js';
import type { PreparedEntry } from './prepareEntry.js';

// Posting prepared entries. The common case is one statement. An entry that names template
// instances not yet created inserts them in the same transaction as the posting, so a refused
// entry (a failing condition) leaves no accounts behind.

/**
 * Inserts the entry's planned accounts that still do not exist (a concurrent entry may have
 * created some since they were planned) and returns the posting with their final ids.
 */
async function createPlannedAccounts(trx: Db, prepared: PreparedEntry): Promise<EntryPosting> {
  if (prepared.newAccounts.length === 0) return prepared.posting;
  const { workspaceId, ledgerId } = prepared.posting;
  await lockLedgerAccountCreation(trx, workspaceId, ledgerId);
  const existing = await accountIdsByPath(
    trx,
    workspaceId,
    ledgerId,
    prepared.newAccounts.map((account) => account.path),
  );
  const idOf = new Map<string, string>();
  for (const account of prepared.newAccounts) {
    const id = existing.get(account.path);
    if (id) idOf.set(account.id, id);
  }
  const remap = (id: string) => idOf.get(id) ?? id;
  await insertLedgerAccounts(
    trx,
    prepared.newAccounts
      .filter((account) => !existing.has(account.path))
      .map((account) => ({ ...account, parentId: account.parentId && remap(account.parentId) })),
  );
  return {
    ...prepared.posting,
    lines: prepared.posting.lines.map((line) => ({ ...line, accountId: remap(line.accountId) })),
    conditions: prepared.posting.conditions.map((condition) => ({
      ...condition,
      accountId: remap(condition.accountId),
    })),
  };
}

export async function postPrepared(sql: Sql, prepared: PreparedEntry): Promise<PostingOutcome> {
  if (prepared.newAccounts.length === 0) return retryingDeadlocks(() => postLedgerEntry(sql, prepared.posting));
  const result = await postAll(sql, [prepared], () => false);
  return 'refused' in result ? result.outcome : result.outcomes[0];
}

type Refused = { refused: number; outcome: PostingOutcome };
export type BatchOutcome = { outcomes: PostingOutcome[] } | Refused;

/**
 * Posts every entry in one transaction, pipelined: either all are written or none. A failed
 * condition, or an outcome `refuses` rejects (an ik clash), rolls the whole batch back.
 */
export async function postAll(
  sql: Sql,
  prepared: readonly PreparedEntry[],
  refuses: (outcome: PostingOutcome, index: number) => boolean,
): Promise<BatchOutcome> {
  const posted = await retryingDeadlocks(() =>
    transaction(sql, async (trx, refuse: (refusal: Refused) => never) => {
      const postings: EntryPosting[] = [];
      for (const entry of prepared) postings.push(await createPlannedAccounts(trx, entry));
      // Several entries in one transaction: take every balance lock they need first, in the global
      // order (rows of eventual accounts take none: their deltas are queued).
      const locks =
        postings.length > 1 ? prepared.flatMap((entry, index) => lockedBalanceRows(entry, postings[index])) : [];
      if (locks.length > 0) await lockBalances(trx, postings[0].workspaceId, locks);
      const settled = await Promise.allSettled(postings.map((posting) => postLedgerEntry(trx, posting)));
      // The first refused entry is the batch's answer (all or nothing): report it.
      const failed = settled.findIndex((result) => result.status === 'fulfilled' && 'failedCondition' in result.value);
      if (failed !== -1)
        refuse({ refused: failed, outcome: (settled[failed] as PromiseFulfilledResult<PostingOutcome>).value });
      const outcomes = settled.map((result) => {
        if (result.status === 'rejected') throw result.reason;
        return result.value;
      });
      outcomes.forEach((outcome, index) => {
        if (refuses(outcome, index)) refuse({ refused: index, outcome });
      });
      return { outcomes };
    }),
  );
  return 'committed' in posted ? posted.committed : posted.rolledBack;
}

/**
 * Posts inside the caller's transaction (creating planned accounts first). A failed condition
 * comes back as an outcome: the caller throws to roll its transaction back.
 */
export async function postWithin(trx: Db, prepared: PreparedEntry): Promise<PostingOutcome> {
  return postLedgerEntry(trx, await createPlannedAccounts(trx, prepared));
}
