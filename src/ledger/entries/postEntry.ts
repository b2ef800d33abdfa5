import { accountIdsByPath, insertLedgerAccounts, lockLedgerAccountCreation } from '../../db/ledgerAccounts.js';
import { postLedgerEntry, type EntryPosting, type PostingOutcome } from '../../db/ledgerEntries.js';
import type { Sql } from '../../db/sql.js';
import type { PreparedEntry } from './prepareEntry.js';

// Posting a prepared entry. The common case is one statement. An entry that names template
// instances not yet created inserts them in the same transaction as the posting, so a refused
// entry (a failing condition) leaves no accounts behind.

class ConditionFailed extends Error {
  constructor(readonly outcome: PostingOutcome) {
    super('condition failed');
  }
}

export async function postPrepared(sql: Sql, prepared: PreparedEntry): Promise<PostingOutcome> {
  if (prepared.newAccounts.length === 0) return postLedgerEntry(sql, prepared.posting);
  try {
    return await sql.begin(async (tx) => {
      const { workspaceId, ledgerId } = prepared.posting;
      await lockLedgerAccountCreation(tx, workspaceId, ledgerId);
      // A concurrent entry may have created some of them since they were planned: use its ids.
      const existing = await accountIdsByPath(tx, workspaceId, ledgerId, prepared.newAccounts.map((account) => account.path));
      const idOf = new Map<string, string>();
      for (const account of prepared.newAccounts) {
        const id = existing.get(account.path);
        if (id) idOf.set(account.id, id);
      }
      const remap = (id: string) => idOf.get(id) ?? id;
      await insertLedgerAccounts(tx, prepared.newAccounts
        .filter((account) => !existing.has(account.path))
        .map((account) => ({ ...account, parentId: account.parentId && remap(account.parentId) })));
      const posting: EntryPosting = {
        ...prepared.posting,
        lines: prepared.posting.lines.map((line) => ({ ...line, accountId: remap(line.accountId) })),
        conditions: prepared.posting.conditions.map((condition) => ({ ...condition, accountId: remap(condition.accountId) })),
      };
      const outcome = await postLedgerEntry(tx, posting);
      if ('failedCondition' in outcome) throw new ConditionFailed(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof ConditionFailed) return error.outcome;
    throw error;
  }
}
