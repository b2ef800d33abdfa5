import type { MutationResolvers } from '../../../../generated/ledger.js';
import { MAX_LINES_PER_ENTRY } from '../../../core/entries.js';
import { DomainError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import { findLedgerEntriesById, reverseLedgerEntry as reverseInDatabase } from '../../../db/ledgerEntries.js';
import { countEntriesWritten, timedPosting } from '../../entries/postingMetrics.js';
import { asMutationResult } from '../../mutationResult.js';

/**
 * Posts the entry that negates another, sharing its ik and posted time; both become hidden and
 * immutable. Reversing an entry that is reversed already, or is itself a reversal, answers the
 * existing pair as a replay.
 */
export const reverseLedgerEntry: NonNullable<MutationResolvers['reverseLedgerEntry']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'reverseLedgerEntry', async () => {
    const workspaceId = ctx.caller.workspaceId;
    const lineIds = Array.from({ length: MAX_LINES_PER_ENTRY }, () => newId('line'));
    const outcome = await timedPosting(() => reverseInDatabase(ctx.sql, workspaceId, args.id, newId('ent'), lineIds));
    if (!outcome) throw new DomainError('ledger_entry_not_found', `No ledger entry ${args.id}.`);
    countEntriesWritten(outcome.replayed ? 0 : 1);
    const entries = new Map(
      (await findLedgerEntriesById(ctx.sql, workspaceId, [outcome.reversedId, outcome.reversingId])).map((entry) => [
        entry.id,
        entry,
      ]),
    );
    return {
      __typename: 'ReverseLedgerEntryResult' as const,
      reversedLedgerEntry: entries.get(outcome.reversedId)!,
      reversingLedgerEntry: entries.get(outcome.reversingId)!,
      isIkReplay: outcome.replayed,
    };
  });
