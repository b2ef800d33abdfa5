import type { MutationResolvers } from '../../../../generated/ledger.js';
import { reconcileEntry } from '../../entries/reconcileEntry.js';
import { asPostingMutationResult } from '../../entries/staleTargets.js';

/** Posts an entry that reconciles external transactions into linked accounts (typed or runtime). */
export const reconcileTx: NonNullable<MutationResolvers['reconcileTx']> = (_parent, args, ctx) =>
  asPostingMutationResult(ctx, 'reconcileTx', () => reconcileEntry(ctx, args.entry));
