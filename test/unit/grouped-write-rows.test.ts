import { describe, expect, it } from 'vitest';
import { oneRowPerCall } from '../../src/db/errors.js';

// A grouped billing write answers its calls positionally: a statement that answered a call
// twice, skipped one or reordered them must fail the group (its calls are then written alone),
// never hand one call's answer to another.
describe('oneRowPerCall', () => {
  const rows = (...ns: number[]) => ns.map((n) => ({ n }));

  it('passes rows that answer each call once, in call order', () => {
    expect(oneRowPerCall(rows(1, 2, 3), 3)).toEqual(rows(1, 2, 3));
    expect(oneRowPerCall(rows(), 0)).toEqual([]);
  });

  it.each([
    ['a missing call', rows(1, 3), 3],
    ['an extra row', rows(1, 2, 3, 4), 3],
    ['calls out of order', rows(2, 1, 3), 3],
    ['a call answered twice', rows(1, 1, 3), 3],
  ])('throws on %s', (_, answered, calls) => {
    expect(() => oneRowPerCall(answered, calls)).toThrow(/grouped write answered/);
  });
});
