import { cannotConnect } from './connectionErrors.js';

// Group commit: writes that arrive while earlier groups are being written wait for the next
// group, which the caller writes in one statement and one commit (one round trip and one WAL
// flush instead of one each). Every write keeps the answer it would get alone: the group writer
// answers each item, or asks for one to be written alone; a group that fails as a whole is
// written again item by item.

/** A group writer's answer for an item it leaves to be written on its own. */
export const WRITE_ALONE: unique symbol = Symbol('write alone');

export type GroupCommitOptions = {
  /** Items in one group at most (counted by sizeOf); 1 writes each item alone, without the queue. */
  maxItems: number;
  /** Groups being written at once; the next group forms while they are. */
  maxInFlight: number;
  /**
   * With this many items waiting and a group free to go, the group goes at once instead of at
   * the end of the event loop's turn: PostgreSQL starts on it while the server still reads the
   * rest of the requests that arrived together. Default, and at most: maxItems (only a full
   * group goes early).
   */
  flushAt?: number;
};

export type GroupCommitSteps<T, R> = {
  /** Writes several items in one commit; answers each, in order, or WRITE_ALONE. */
  writeGroup: (items: T[]) => Promise<(R | typeof WRITE_ALONE)[]>;
  writeAlone: (item: T) => Promise<R>;
  /**
   * Items that share a key are never written at once (in one group, or in two groups in
   * flight): the later one waits until the earlier one's group has finished, so it sees it
   * committed (a replay, say) exactly as it would alone.
   */
  keysOf: (item: T) => readonly string[];
  /** How many of maxItems the item fills (default 1): a group takes items while they fit, the first one always. */
  sizeOf?: (item: T) => number;
  /**
   * Whether a group that failed as a whole with this error is written again item by item
   * (default: unless no connection can be opened, when each item would only wait to fail again).
   */
  retriesAlone?: (error: unknown) => boolean;
  /** Metrics: a group written, and a group that failed as a whole. */
  onGroup?: (size: number) => void;
  onGroupFailed?: () => void;
};

type Waiting<T, R> = { item: T; resolve: (answer: R) => void; reject: (error: unknown) => void };

/** Answers `write(item)` through groups; arrivals in the same turn of the event loop share one. */
export function groupCommit<T, R>(options: GroupCommitOptions, steps: GroupCommitSteps<T, R>): (item: T) => Promise<R> {
  const waiting: Waiting<T, R>[] = [];
  /** Keys of the items in the groups being written. */
  const writing = new Set<string>();
  let inFlight = 0;
  let scheduled = false;

  const flushAt = Math.min(options.flushAt ?? options.maxItems, options.maxItems);
  const sizeOf = steps.sizeOf ?? (() => 1);
  const retriesAlone = steps.retriesAlone ?? ((error: unknown) => !cannotConnect(error));
  /**
   * The size of the items that arrived since groups last went out. Only they count toward
   * flushAt: items held back because a key is being written would otherwise send each newcomer alone.
   */
  let arrivals = 0;
  const dispatch = () => {
    arrivals = 0;
    while (inFlight < options.maxInFlight) {
      const group = nextGroup(waiting, options.maxItems, steps, sizeOf, writing);
      if (group.length === 0) break;
      void write(group);
    }
  };
  const schedule = () => {
    if (inFlight >= options.maxInFlight || waiting.length === 0) return;
    if (arrivals >= flushAt) return dispatch();
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      dispatch();
    });
  };

  const alone = (entry: Waiting<T, R>) => steps.writeAlone(entry.item).then(entry.resolve, entry.reject);
  // In arrival order, each after the one before has finished: each meets what it would have met
  // had the group not been tried (the first of two spends on one balance is the one that fits).
  const oneAfterAnother = async (entries: Waiting<T, R>[]) => {
    for (const entry of entries) await alone(entry);
  };

  const write = async (group: Waiting<T, R>[]) => {
    inFlight++;
    const keys = group.flatMap((entry) => steps.keysOf(entry.item));
    for (const key of keys) writing.add(key);
    steps.onGroup?.(group.reduce((size, entry) => size + sizeOf(entry.item), 0));
    try {
      if (group.length === 1) return await alone(group[0]);
      let answers: (R | typeof WRITE_ALONE)[];
      try {
        answers = await steps.writeGroup(group.map((entry) => entry.item));
      } catch (error) {
        // Something failed the whole statement (a deadlock, a refusal of one item): each item alone.
        steps.onGroupFailed?.();
        if (!retriesAlone(error)) {
          for (const entry of group) entry.reject(error);
          return;
        }
        await oneAfterAnother(group);
        return;
      }
      const leftAlone: Waiting<T, R>[] = [];
      group.forEach((entry, index) => {
        const answer = answers[index];
        if (answer === WRITE_ALONE) leftAlone.push(entry);
        else entry.resolve(answer);
      });
      await oneAfterAnother(leftAlone);
    } finally {
      for (const key of keys) writing.delete(key);
      inFlight--;
      schedule();
    }
  };

  return (item) => {
    if (options.maxItems === 1) return steps.writeAlone(item);
    return new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      arrivals += sizeOf(item);
      schedule();
    });
  };
}

/**
 * Takes waiting items in arrival order while their sizes fit in `max` (the first always does),
 * passing over those that share a key with an item taken, being written or passed over.
 */
function nextGroup<T, R>(
  waiting: Waiting<T, R>[],
  max: number,
  steps: Pick<GroupCommitSteps<T, R>, 'keysOf'>,
  sizeOf: (item: T) => number,
  writing: ReadonlySet<string>,
): Waiting<T, R>[] {
  const group: Waiting<T, R>[] = [];
  const keys = new Set<string>(writing);
  let size = 0;
  for (let index = 0; index < waiting.length && size < max;) {
    const item = waiting[index].item;
    const itemKeys = steps.keysOf(item);
    if (itemKeys.some((key) => keys.has(key))) {
      // Its other keys stay reserved too: a later item never overtakes it on a key they share.
      for (const key of itemKeys) keys.add(key);
      index++;
      continue;
    }
    const itemSize = sizeOf(item);
    if (group.length > 0 && size + itemSize > max) break;
    for (const key of itemKeys) keys.add(key);
    size += itemSize;
    group.push(...waiting.splice(index, 1));
  }
  return group;
}
