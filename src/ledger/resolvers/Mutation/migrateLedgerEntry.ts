import type { MutationResolvers } from '../../../../generated/ledger.js';
import { MAX_LINES_PER_ENTRY } from '../../../core/entries.js';
import { DomainError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import {
  findLedgerEntriesById,
  findLedgerEntry,
  linesOfEntry,
  lockBalances,
  reverseLedgerEntry,
} from '../../../db/ledgerEntries.js';
import { checkOutcome, ledgerForEntry } from '../../entries/addEntry.js';
import { postWithin } from '../../entries/postEntry.js';
import { countEntriesWritten, timedPosting } from '../../entries/postingMetrics.js';
import { prepareEntry } from '../../entries/prepareEntry.js';
import { asPostingMutationResult, preparingFrom, refuse } from '../../entries/staleTargets.js';

/**
 * Reverses an entry and posts its replacement under the same ik, in one transaction: either
 * both happen or neither. Repeating the same migration answers the earlier result as a replay.
 */
export const migrateLedgerEntry: NonNullable<MutationResolvers['migrateLedgerEntry']> = (_parent, args, ctx) =>
  asPostingMutationResult(ctx, 'migrateLedgerEntry', async () => {
    const workspaceId = ctx.caller.workspaceId;
    const original = await findLedgerEntry(ctx.sql, workspaceId, { id: args.input.id });
    if (!original) throw new DomainError('ledger_entry_not_found', `No ledger entry ${args.input.id}.`);
    if (original.reversesId)
      throw new DomainError(
        'ledger_entry_immutable',
        `Entry ${original.id} is a reversal; migrate the entry it reverses.`,
      );
    const input = args.input.newLedgerEntry;
    const target = await ledgerForEntry(ctx, workspaceId, input.ledger ?? { id: original.ledgerId }, [input]);
    // A held ledger ik may name a ledger since deleted, its ik taken by another: confirmed fresh.
    if (target.ledger.id !== original.ledgerId)
      refuse(
        target,
        new DomainError('invalid_input_provided', "The replacement must be in the original entry's ledger."),
      );
    const prepared = await preparingFrom(target, () =>
      prepareEntry(ctx, target.ledger, target.schema, original.ik, input, { prefetched: target.accounts }),
    );

    const result = await timedPosting(() =>
      ctx.sql.begin(async (trx) => {
        // Reversal and posting touch two sets of balances: lock them all first, in the global order.
        const planned = new Set(prepared.newAccounts.map((account) => account.id));
        await lockBalances(trx, workspaceId, [
          ...(await linesOfEntry(trx, workspaceId, original.id)),
          ...prepared.posting.lines.filter((line) => !planned.has(line.accountId)),
        ]);
        const reversal = (await reverseLedgerEntry(
          trx,
          workspaceId,
          original.id,
          newId('ent'),
          Array.from({ length: MAX_LINES_PER_ENTRY }, () => newId('line')),
        ))!;
        const outcome = await postWithin(trx, prepared);
        // A refusal thrown here rolls the reversal back with the posting.
        checkOutcome(prepared, outcome, original.ik);
        return { reversal, posted: outcome };
      }),
    );
    // The reversing entry and the replacement: each counts when this call wrote it.
    countEntriesWritten(Number(!result.reversal.replayed) + Number(!result.posted.replayed));
    const ids = [result.reversal.reversedId, result.reversal.reversingId, result.posted.entryId];
    const entries = new Map((await findLedgerEntriesById(ctx.sql, workspaceId, ids)).map((entry) => [entry.id, entry]));
    return {
      __typename: 'MigrateLedgerEntryResult' as const,
      reversedLedgerEntry: entries.get(result.reversal.reversedId)!,
      reversingLedgerEntry: entries.get(result.reversal.reversingId)!,
      newLedgerEntry: entries.get(result.posted.entryId)!,
      isIkReplay: result.reversal.replayed && result.posted.replayed,
    };
  });
