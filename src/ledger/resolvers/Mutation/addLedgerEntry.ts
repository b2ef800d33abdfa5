import type { MutationResolvers } from '../../../../generated/ledger.js';
import { addEntry, ledgerForEntry } from '../../entries/addEntry.js';
import { asPostingMutationResult } from '../../entries/staleTargets.js';

/**
 * Posts one entry: typed (a schema entry type and its parameters) or with explicit lines. A
 * replayed ik answers the original entry and lines; the same ik with another payload is refused;
 * a failing condition is refused naming the account; nothing is written in any refusal.
 */
export const addLedgerEntry: NonNullable<MutationResolvers['addLedgerEntry']> = (_parent, args, ctx) =>
  asPostingMutationResult(ctx, 'addLedgerEntry', async () =>
    addEntry(
      ctx,
      await ledgerForEntry(ctx, ctx.caller.workspaceId, args.entry.ledger, [args.entry]),
      args.ik,
      args.entry,
    ),
  );
