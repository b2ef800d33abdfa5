import { DomainError } from '../../core/errors.js';
import { sqlRefusal } from '../../db/errors.js';
import { stalePostings } from '../../observability/metrics.js';
import type { GqlContext } from '../context.js';
import { asMutationResult } from '../mutationResult.js';
import type { EntryLedger } from './addEntry.js';
import type { PostingContext } from './postingTargets.js';

// Entries are prepared from their ledger and accounts as this process holds them, and a posting
// states the ledger revision it was prepared from. Two things send a mutation round again, from
// lookups that read the database: the database refusing a posting as stale
// (posting_target_changed: the ledger or an account changed since), and a refusal decided while
// preparing from held targets, which is answered only once fresh targets confirm it (or targets
// of one entry read at two revisions). Nothing of the attempt that went round was written.

/** Attempts at most: past the first, each one means a change committed between a lookup and its posting. */
const ATTEMPTS = 3;

/** The targets an entry was being prepared from cannot be trusted together: prepare it again, fresh. */
export class StaleTargets extends Error {
  constructor(
    readonly ledgerId: string,
    reason: string,
  ) {
    super(`posting targets of ledger ${ledgerId} to read again: ${reason}`);
  }
}

/** A refusal decided from held targets (preparingFrom), not yet confirmed from fresh ones. */
class HeldTargetsRefusal extends StaleTargets {
  constructor(ledgerId: string, refusal: DomainError) {
    super(ledgerId, `refused from held targets (${refusal.message})`);
  }
}

/**
 * Runs an entry's preparation from `target`: a refusal it decides from held targets goes back to
 * retryingStaleTargets, which confirms it from fresh ones.
 */
export async function preparingFrom<T>(
  target: Pick<EntryLedger, 'held' | 'ledger'>,
  prepare: () => Promise<T>,
): Promise<T> {
  try {
    return await prepare();
  } catch (error) {
    if (error instanceof DomainError) refuse(target, error);
    throw error;
  }
}

/** Throws `refusal`; decided from held targets, it sends the mutation round again to be confirmed fresh. */
export function refuse(target: Pick<EntryLedger, 'held' | 'ledger'>, refusal: DomainError): never {
  throw target.held ? new HeldTargetsRefusal(target.ledger.id, refusal) : refusal;
}

/** The ledgers whose held targets made this error, when a fresh lookup may answer otherwise. */
function staleLedgers(error: unknown): string[] | undefined {
  if (error instanceof StaleTargets) return [error.ledgerId];
  const refusal = sqlRefusal(error);
  return refusal?.name === 'posting_target_changed' ? (JSON.parse(refusal.detail ?? '[]') as string[]) : undefined;
}

/** Runs `mutation`, again from fresh lookups while it is refused from stale or held targets. */
export async function retryingStaleTargets<T>(
  ctx: PostingContext & { caller: { workspaceId: string } },
  mutation: () => Promise<T>,
): Promise<T> {
  const shared = ctx.postingTargets;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await mutation();
      } catch (error) {
        const stale = staleLedgers(error);
        if (!stale) throw error;
        stalePostings.inc();
        for (const ledgerId of stale) shared.forget(ctx.caller.workspaceId, ledgerId);
        if (attempt === ATTEMPTS) {
          throw new DomainError(
            'service_unavailable',
            'The ledger kept changing while the entry was being posted; nothing was posted. Retry.',
          );
        }
        // This request's next attempt reads its targets from the database (the context is its own).
        ctx.postingTargets = shared.fresh();
      }
    }
  } finally {
    ctx.postingTargets = shared;
  }
}

/** asMutationResult for a mutation that posts entries: run again from fresh targets when stale. */
export const asPostingMutationResult = <T>(ctx: GqlContext, mutation: string, run: () => Promise<T>) =>
  asMutationResult(ctx, mutation, () => retryingStaleTargets(ctx, run));
