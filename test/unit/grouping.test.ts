import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupBy } from '../../src/core/grouping.js';

// groupBy feeds list pages that attach children (lines, allocations, payments) to their parents:
// losing, duplicating or reordering an item would show a parent the wrong children.

describe('groupBy', () => {
  it('groups items by key, keys in order of first appearance, items in their input order', () => {
    const lines = [
      { invoice: 'inv_2', id: 'a' },
      { invoice: 'inv_1', id: 'b' },
      { invoice: 'inv_2', id: 'c' },
      { invoice: 'inv_3', id: 'd' },
      { invoice: 'inv_1', id: 'e' },
    ];
    const groups = groupBy(lines, (line) => line.invoice);
    expect([...groups.keys()]).toEqual(['inv_2', 'inv_1', 'inv_3']);
    expect([...groups.entries()].map(([key, items]) => [key, items.map((item) => item.id)])).toEqual([
      ['inv_2', ['a', 'c']],
      ['inv_1', ['b', 'e']],
      ['inv_3', ['d']],
    ]);
  });

  it('keeps the items themselves, not copies', () => {
    const item = { key: 'k' };
    expect(groupBy([item], (each) => each.key).get('k')![0]).toBe(item);
  });

  it('gives an empty map for no items and reads any iterable once', () => {
    expect(groupBy([], String).size).toBe(0);
    let reads = 0;
    function* items() {
      reads += 1;
      yield* ['x1', 'y1', 'x2'];
    }
    expect(Object.fromEntries(groupBy(items(), (text) => text[0]))).toEqual({ x: ['x1', 'x2'], y: ['y1'] });
    expect(reads).toBe(1);
  });

  it('tells keys apart exactly: the empty key, and keys that differ only in case', () => {
    expect(Object.fromEntries(groupBy(['', 'A', 'a', ''], (text) => text))).toEqual({
      '': ['', ''],
      A: ['A'],
      a: ['a'],
    });
  });

  // Law: groupBy partitions the input; each group is the input filtered by its key, and the
  // map's keys are the distinct keys in order of first appearance.
  it('partitions any list into the input filtered by each key', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', ''), fc.integer())), (items) => {
        const groups = groupBy(items, ([key]) => key);
        const firstSeen = [...new Set(items.map(([key]) => key))];
        expect([...groups.keys()]).toEqual(firstSeen);
        for (const key of firstSeen) expect(groups.get(key)).toEqual(items.filter(([k]) => k === key));
        expect([...groups.values()].reduce((count, group) => count + group.length, 0)).toBe(items.length);
      }),
      { numRuns: 200 },
    );
  });
});
