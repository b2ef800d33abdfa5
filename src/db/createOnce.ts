import { keyReused, sameRequest, type IdempotencyKey } from '../core/idempotency.js';
import { rollbackScope } from './rollback.js';

// Why: the unique constraint decides who creates under a key, inside the write's own transaction
// (design principle 3); this is the one place that turns "the key was taken" into the replay of
// what an earlier or concurrent request created, or into the refusal of a reused key.

/** What the key holds now: the row this call created, or the stored one it replays. */
export type CreatedOnce<C, S> = { replayed: false; row: C } | { replayed: true; row: S };

export type CreateOnceSteps<S, C> = {
  key: IdempotencyKey;
  /** The row that holds the key now, if any (read again after a lost race, so not in a rolled-back transaction). */
  find: () => Promise<S | undefined>;
  /** Whether the stored row answers this very request (usually `sameFingerprint(requestHash)`). */
  same: (stored: S) => boolean;
  /** What differs, for the refusal's message, when it can be told. */
  difference?: (stored: S) => string | undefined;
  /**
   * Checks and writes. Its insert is `on conflict do nothing`: when that wrote nothing, it calls
   * `taken()`, which throws, so a transaction of its own rolls back whatever it wrote before.
   */
  create: (taken: () => never) => Promise<C>;
  /** Look the key up before creating, so a replay skips the create's checks and work (the default). */
  lookFirst?: boolean;
};

/**
 * Creates once, or answers what holds the key: the same request is a replay, another one
 * the key's typed refusal. A key taken between the look-up and the insert is answered the same way.
 */
export async function createOnce<S, C>(steps: CreateOnceSteps<S, C>): Promise<CreatedOnce<C, S>> {
  const replay = (stored: S | undefined): CreatedOnce<C, S> => {
    // Taken, yet nothing to read under the key (removed meanwhile): it holds no request of ours.
    if (stored === undefined) throw keyReused(steps.key);
    return { replayed: true, row: sameRequest(steps.key, stored, steps.same(stored), steps.difference?.(stored)) };
  };
  if (steps.lookFirst !== false) {
    const stored = await steps.find();
    if (stored !== undefined) return replay(stored);
  }
  const { rollback, outcomeOf } = rollbackScope<'taken'>();
  try {
    return { replayed: false, row: await steps.create(() => rollback('taken')) };
  } catch (error) {
    if (!outcomeOf(error)) throw error;
  }
  // A concurrent request with the same key committed first: this one is its replay (or a reused key).
  return replay(await steps.find());
}
