import { describe, expect, it } from 'vitest';
import { groupCommit, WRITE_ALONE, type GroupCommitSteps } from '../../src/db/groupCommit.js';

// The group commit scheduler on its own: who shares a group, and what each caller is answered
// when the group writer answers, leaves an item alone, or fails as a whole.

type Item = { key: string; value: number };
/** An item keyed once (`key`) or several times (`keys`, a batch's iks); `value` names it in the records. */
type Keyed = { value: number } & ({ key: string } | { keys: string[] });

function recorder<T extends Keyed = Item>(overrides: Partial<GroupCommitSteps<T, string>> = {}) {
  const groups: number[][] = [];
  const alone: number[] = [];
  const steps: GroupCommitSteps<T, string> = {
    writeGroup: async (items) => {
      groups.push(items.map((item) => item.value));
      return items.map((item) => `group:${item.value}`);
    },
    writeAlone: async (item) => {
      alone.push(item.value);
      return `alone:${item.value}`;
    },
    keysOf: (item) => ('keys' in item ? item.keys : [item.key]),
    ...overrides,
  };
  return { groups, alone, steps };
}

const items = (keys: string[]) => keys.map((key, value) => ({ key, value }));

describe('group commit', () => {
  it('writes what arrives in one turn as groups of at most maxItems, in arrival order', async () => {
    const { groups, alone, steps } = recorder();
    const write = groupCommit({ maxItems: 3, maxInFlight: 1 }, steps);
    const answers = await Promise.all(items(['a', 'b', 'c', 'd', 'e', 'f', 'g']).map(write));
    expect(answers).toEqual(['group:0', 'group:1', 'group:2', 'group:3', 'group:4', 'group:5', 'alone:6']);
    expect(groups).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(alone).toEqual([6]);
  });

  it('sends a group as soon as flushAt items wait, before the turn ends, while groups are free', async () => {
    const { groups, alone, steps } = recorder();
    const write = groupCommit({ maxItems: 8, maxInFlight: 2, flushAt: 2 }, steps);
    const answers = [write(items(['a'])[0])];
    expect(groups).toEqual([]);
    answers.push(write({ key: 'b', value: 1 }));
    // Written at the second arrival, not at the end of the turn.
    expect(groups).toEqual([[0, 1]]);
    answers.push(write({ key: 'c', value: 2 }), write({ key: 'd', value: 3 }));
    expect(groups).toEqual([
      [0, 1],
      [2, 3],
    ]);
    // Both groups are in flight: the next ones wait for one of them, early flush or not.
    answers.push(write({ key: 'e', value: 4 }), write({ key: 'f', value: 5 }));
    expect(groups).toHaveLength(2);
    expect(await Promise.all(answers)).toEqual(['group:0', 'group:1', 'group:2', 'group:3', 'group:4', 'group:5']);
    expect(groups).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    expect(alone).toEqual([]);
  });

  it('sends a full group at once whatever flushAt says above maxItems', () => {
    const { groups, steps } = recorder();
    const write = groupCommit({ maxItems: 2, maxInFlight: 1, flushAt: 10 }, steps);
    void write({ key: 'a', value: 0 });
    void write({ key: 'b', value: 1 });
    expect(groups).toEqual([[0, 1]]);
  });

  it('counts toward flushAt only the items that arrived since groups last went, not those held back by their key', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { groups, alone, steps } = recorder({
      // The hot key's write stays in flight until the gate opens, so its twins stay held back.
      writeAlone: async (item) => {
        alone.push(item.value);
        if (item.key === 'hot') await gate;
        return `alone:${item.value}`;
      },
    });
    const write = groupCommit({ maxItems: 32, maxInFlight: 4, flushAt: 16 }, steps);
    // Seventeen writes of one key: the first goes alone, sixteen wait behind it.
    const held = Array.from({ length: 17 }, (_, value) => write({ key: 'hot', value }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(alone).toEqual([0]);
    // Forty writes of other keys: they go as groups of sixteen, not one by one.
    const fresh = Array.from({ length: 40 }, (_, i) => write({ key: `k${i}`, value: 100 + i }));
    expect(groups.map((group) => group.length)).toEqual([16, 16]);
    expect(alone).toEqual([0]);
    open();
    await Promise.all([...held, ...fresh]);
    expect(alone.filter((value) => value >= 100)).toEqual([]);
  });

  it('never puts two items with one key in a group: the later one waits for a later group', async () => {
    const { groups, alone, steps } = recorder();
    const write = groupCommit({ maxItems: 8, maxInFlight: 1 }, steps);
    await Promise.all(items(['a', 'a', 'b', 'a', 'c']).map(write));
    // The twins of 'a' each go in a later group, in arrival order (a group of one is written alone).
    expect(groups).toEqual([[0, 2, 4]]);
    expect(alone).toEqual([1, 3]);
  });

  it('never writes two items with one key at once: a twin waits for the group in flight to finish', async () => {
    const started: number[] = [];
    const release = new Map<number, () => void>();
    const held = (value: number) =>
      new Promise<void>((resolve) => {
        started.push(value);
        release.set(value, resolve);
      });
    const { steps } = recorder({
      writeAlone: async (item) => {
        await held(item.value);
        return `alone:${item.value}`;
      },
    });
    const write = groupCommit({ maxItems: 2, maxInFlight: 2 }, steps);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = write({ key: 'a', value: 0 });
    await turn();
    const later = [write({ key: 'a', value: 1 }), write({ key: 'b', value: 2 })];
    await turn();
    await turn();
    // A free slot, yet only 'b' started: the twin of 'a' waits while 'a' is being written.
    expect(started).toEqual([0, 2]);
    release.get(0)!();
    await first;
    await turn();
    await turn();
    expect(started).toEqual([0, 2, 1]);
    release.get(1)!();
    release.get(2)!();
    expect(await Promise.all(later)).toEqual(['alone:1', 'alone:2']);
  });

  it('fills groups by item size, the first item always, and keeps apart items sharing any of their keys', async () => {
    type Batch = { keys: string[]; size: number; value: number };
    const { groups, alone, steps } = recorder<Batch>({ sizeOf: (batch) => batch.size });
    const write = groupCommit({ maxItems: 10, maxInFlight: 1 }, steps);
    const batches: Batch[] = [
      { keys: ['a', 'b'], size: 4, value: 0 },
      { keys: ['c'], size: 4, value: 1 },
      // Shares 'b' with the first: waits for a later group.
      { keys: ['d', 'b'], size: 1, value: 2 },
      // Would make 12 of 10: the group closes before it.
      { keys: ['e'], size: 4, value: 3 },
      { keys: ['f'], size: 1, value: 4 },
      // Larger than a group on its own: goes first in its group, alone.
      { keys: ['g'], size: 30, value: 5 },
    ];
    const answers = await Promise.all(batches.map(write));
    expect(answers).toEqual(['group:0', 'group:1', 'group:2', 'group:3', 'group:4', 'alone:5']);
    expect(groups).toEqual([
      [0, 1],
      [2, 3, 4],
    ]);
    expect(alone).toEqual([5]);
  });

  it('never lets a later item overtake one held back on any key they share', async () => {
    type Batch = { keys: string[]; value: number };
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const order: number[] = [];
    const write = groupCommit<Batch, number>(
      { maxItems: 8, maxInFlight: 2 },
      {
        writeGroup: async (batches) => batches.map((batch) => batch.value),
        writeAlone: async (batch) => {
          order.push(batch.value);
          if (batch.value === 0) await gate;
          return batch.value;
        },
        keysOf: (batch) => batch.keys,
      },
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = write({ keys: ['a'], value: 0 });
    await turn();
    // 1 waits for 'a'; 2 shares only 'b' with it, and must not be written before it.
    const later = [write({ keys: ['a', 'b'], value: 1 }), write({ keys: ['b'], value: 2 })];
    await turn();
    await turn();
    expect(order).toEqual([0]);
    open();
    expect(await Promise.all([first, ...later])).toEqual([0, 1, 2]);
    expect(order).toEqual([0, 1, 2]);
  });

  it('writes the items a group leaves alone one after another, in arrival order', async () => {
    const running: number[] = [];
    const overlaps: number[] = [];
    const { steps } = recorder({
      writeGroup: async (batch) => batch.map(() => WRITE_ALONE),
      writeAlone: async (item) => {
        if (running.length > 0) overlaps.push(item.value);
        running.push(item.value);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running.pop();
        return `alone:${item.value}`;
      },
    });
    const write = groupCommit({ maxItems: 8, maxInFlight: 1 }, steps);
    expect(await Promise.all(items(['a', 'b', 'c']).map(write))).toEqual(['alone:0', 'alone:1', 'alone:2']);
    expect(overlaps).toEqual([]);
  });

  it('writes alone an item the group writer leaves, and answers the others from the group', async () => {
    const { alone, steps } = recorder({
      writeGroup: async (batch) => batch.map((item) => (item.value === 1 ? WRITE_ALONE : `group:${item.value}`)),
    });
    const write = groupCommit({ maxItems: 8, maxInFlight: 1 }, steps);
    expect(await Promise.all(items(['a', 'b', 'c']).map(write))).toEqual(['group:0', 'alone:1', 'group:2']);
    expect(alone).toEqual([1]);
  });

  it('writes every item alone when the group fails as a whole, each with its own answer or error', async () => {
    let failed = 0;
    const { steps } = recorder({
      writeGroup: () => Promise.reject(new Error('deadlock')),
      writeAlone: async (item) => {
        if (item.value === 2) throw new Error('refused alone');
        return `alone:${item.value}`;
      },
      onGroupFailed: () => failed++,
    });
    const write = groupCommit({ maxItems: 8, maxInFlight: 1 }, steps);
    const answers = await Promise.allSettled(items(['a', 'b', 'c']).map(write));
    expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : String(answer.reason)))).toEqual([
      'alone:0',
      'alone:1',
      'Error: refused alone',
    ]);
    expect(failed).toBe(1);
  });

  it('fails every item with the group’s error, none written alone, when the error says retrying alone is pointless', async () => {
    const unreachable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { alone, steps } = recorder({
      writeGroup: () => Promise.reject(unreachable),
      retriesAlone: (error) => (error as { code?: string }).code !== 'ECONNREFUSED',
    });
    const write = groupCommit({ maxItems: 8, maxInFlight: 1 }, steps);
    const answers = await Promise.allSettled(items(['a', 'b', 'c']).map(write));
    expect(answers.map((answer) => (answer.status === 'rejected' ? answer.reason : answer.value))).toEqual([
      unreachable,
      unreachable,
      unreachable,
    ]);
    expect(alone).toEqual([]);
  });

  it('by default writes alone after a lost connection, and not when no connection can be opened', async () => {
    const lost = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const unreachable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    for (const [error, expected] of [
      [lost, [0, 1]],
      [unreachable, []],
    ] as const) {
      const { alone, steps } = recorder({ writeGroup: () => Promise.reject(error) });
      const write = groupCommit({ maxItems: 8, maxInFlight: 1 }, steps);
      await Promise.allSettled(items(['a', 'b']).map(write));
      expect(alone).toEqual(expected);
    }
  });

  it('skips the queue when groups are of one', async () => {
    const { groups, alone, steps } = recorder();
    const write = groupCommit({ maxItems: 1, maxInFlight: 4 }, steps);
    expect(await Promise.all(items(['a', 'b']).map(write))).toEqual(['alone:0', 'alone:1']);
    expect([groups, alone]).toEqual([[], [0, 1]]);
  });
});
