import { createPlannedAccounts } from '../../db/ledgerAccounts.js';
import {
  lockBalances,
  postLedgerEntries,
  postLedgerEntriesAtomically,
  postLedgerEntry,
  type BatchOutcome,
  type EntryPosting,
  type PlannedAccountOf,
  type PostingOutcome,
} from '../../db/ledgerEntries.js';
import { retryingDeadlocks } from '../../db/deadlocks.js';
import { transaction } from '../../db/rollback.js';
import type { Db, Sql } from '../../db/sql.js';
import { lockedBalanceRows } from './balanceLocks.js';
import type { PreparedEntry } from './prepareEntry.js';

// Posting prepared entries. Entries that bound no total balance go through the set-based group
// statement (post_ledger_entry_group), which also creates the template instances they plan and
// drops those only a refused entry needed. An entry that bounds a total balance is posted by
// post_ledger_entry_checked, after its planned accounts in the same transaction.

/** Whether the entry can be posted by the group statement: it bounds no total balance. */
export function groupable(prepared: PreparedEntry): boolean {
  return prepared.posting.conditions.every(
    (condition) => !condition.totalPrecondition && !condition.totalPostcondition,
  );
}

/** The template instances the entries plan, each with its entry's 1-based ordinal. */
export function plannedAccountsOf(prepared: readonly PreparedEntry[]): PlannedAccountOf[] {
  return prepared.flatMap((entry, index) => entry.newAccounts.map((account) => ({ ordinal: index + 1, account })));
}

/**
 * Creates the entry's planned accounts that still do not exist (a concurrent entry may have
 * created some since they were planned) and returns the posting naming their final ids.
 */
async function createPlannedAccountsOf(trx: Db, prepared: PreparedEntry): Promise<EntryPosting> {
  if (prepared.newAccounts.length === 0) return prepared.posting;
  const idOf = await createPlannedAccounts(trx, prepared.newAccounts);
  const remap = (id: string) => idOf.get(id) ?? id;
  return {
    ...prepared.posting,
    lines: prepared.posting.lines.map((line) => ({ ...line, accountId: remap(line.accountId) })),
    conditions: prepared.posting.conditions.map((condition) => ({
      ...condition,
      accountId: remap(condition.accountId),
    })),
  };
}

/** Posts one entry in its own transaction (one statement, except a total bound that creates accounts). */
export async function postAlone(sql: Sql, prepared: PreparedEntry): Promise<PostingOutcome> {
  if (prepared.newAccounts.length === 0) return retryingDeadlocks(() => postLedgerEntry(sql, prepared.posting));
  if (groupable(prepared)) {
    return retryingDeadlocks(
      async () => (await postLedgerEntries(sql, [prepared.posting], plannedAccountsOf([prepared])))[0],
    );
  }
  // A replay writes nothing: rolling back drops the accounts created for it.
  const result = await postInTransaction(sql, [prepared], (outcome) => 'replayed' in outcome && outcome.replayed);
  return 'refused' in result ? result.outcome : result.outcomes[0];
}

/**
 * Posts every entry or none (addLedgerEntries): the first entry a condition refuses, or else
 * the first whose ik another request's entry holds, is the answer. Entries that bound no total
 * balance go in one statement; others in one transaction. No two entries may share an ik.
 */
export async function postAll(sql: Sql, prepared: readonly PreparedEntry[]): Promise<BatchOutcome> {
  if (prepared.every(groupable)) {
    return retryingDeadlocks(() =>
      postLedgerEntriesAtomically(
        sql,
        prepared.map((entry) => entry.posting),
        plannedAccountsOf(prepared),
      ),
    );
  }
  return postInTransaction(sql, prepared, (outcome, index) => ikHeldByAnother(prepared[index], outcome));
}

/** Whether the outcome replays an entry of another request: the entry's ik was taken for different content. */
export const ikHeldByAnother = (prepared: PreparedEntry, outcome: PostingOutcome) =>
  'replayed' in outcome && outcome.replayed && outcome.requestHash !== prepared.posting.requestHash;

/**
 * Posts every entry in one transaction: either all are written or none. A failed condition, or
 * an outcome `refuses` rejects, rolls the whole batch back and is the answer.
 */
async function postInTransaction(
  sql: Sql,
  prepared: readonly PreparedEntry[],
  refuses: (outcome: PostingOutcome, index: number) => boolean,
): Promise<BatchOutcome> {
  const posted = await retryingDeadlocks(() =>
    transaction(sql, async (trx, refuse: (refusal: Refused) => never) => {
      const outcomes = await postOneByOne(trx, prepared);
      // The first refused entry is the batch's answer (all or nothing).
      const failed = outcomes.findIndex((outcome) => 'failedCondition' in outcome);
      if (failed !== -1) refuse({ refused: failed, outcome: outcomes[failed] });
      outcomes.forEach((outcome, index) => {
        if (refuses(outcome, index)) refuse({ refused: index, outcome });
      });
      return { outcomes };
    }),
  );
  return 'committed' in posted ? posted.committed : posted.rolledBack;
}

type Refused = Extract<BatchOutcome, { refused: number }>;

/**
 * A batch with total bounds: each entry by post_ledger_entry_checked, pipelined in the caller's
 * transaction, after every balance lock they need is taken in the global order (rows of
 * eventual accounts take none: their deltas are queued).
 */
async function postOneByOne(trx: Db, prepared: readonly PreparedEntry[]): Promise<PostingOutcome[]> {
  const postings: EntryPosting[] = [];
  for (const entry of prepared) postings.push(await createPlannedAccountsOf(trx, entry));
  const locks = prepared.flatMap((entry, index) => lockedBalanceRows(entry, postings[index]));
  if (postings.length > 1 && locks.length > 0) await lockBalances(trx, postings[0].workspaceId, locks);
  return Promise.all(postings.map((posting) => postLedgerEntry(trx, posting)));
}

/**
 * Posts inside the caller's transaction (creating planned accounts first). A failed condition
 * comes back as an outcome: the caller throws to roll its transaction back.
 */
export async function postWithin(trx: Db, prepared: PreparedEntry): Promise<PostingOutcome> {
  if (prepared.newAccounts.length > 0 && groupable(prepared)) {
    return (await postLedgerEntries(trx, [prepared.posting], plannedAccountsOf([prepared])))[0];
  }
  return postLedgerEntry(trx, await createPlannedAccountsOf(trx, prepared));
}
