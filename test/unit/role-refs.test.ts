import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitRoleRefs, type RoleRef } from '../../src/core/roleRefs.js';

// createProduct looks every role up once: the references of both lists split into distinct ids
// (which must exist) and distinct names (created on first use), in order of first mention.

const ref: fc.Arbitrary<RoleRef> = fc.oneof(
  fc.constantFrom('role_1', 'role_2', 'role_3').map((id) => ({ id })),
  fc.constantFrom('buyer', 'seller', 'Buyer', 'role_1').map((name) => ({ name })),
);

describe('splitRoleRefs', () => {
  it('splits ids from names, each once, first mention first', () => {
    expect(
      splitRoleRefs([
        { name: 'seller' },
        { id: 'role_2' },
        { name: 'buyer' },
        { id: 'role_1' },
        { name: 'seller' },
        { id: 'role_2' },
      ]),
    ).toEqual({ ids: ['role_2', 'role_1'], names: ['seller', 'buyer'] });
    expect(splitRoleRefs([])).toEqual({ ids: [], names: [] });
  });

  it('keeps an id and a name with the same text apart, and names case-sensitive', () => {
    // A role named "role_1" is not the role whose id is role_1.
    expect(splitRoleRefs([{ id: 'role_1' }, { name: 'role_1' }, { name: 'Buyer' }, { name: 'buyer' }])).toEqual({
      ids: ['role_1'],
      names: ['role_1', 'Buyer', 'buyer'],
    });
  });

  it("gives every reference's id or name exactly once, in order of first mention", () => {
    // Law: ids = dedupe([r.id | r has id]) and names = dedupe([r.name | r has name]), dedupe keeping first occurrences.
    const dedupe = (list: string[]) => list.filter((item, index) => list.indexOf(item) === index);
    fc.assert(
      fc.property(fc.array(ref, { maxLength: 12 }), (refs) => {
        expect(splitRoleRefs(refs)).toEqual({
          ids: dedupe(refs.flatMap((r) => ('id' in r ? [r.id] : []))),
          names: dedupe(refs.flatMap((r) => ('name' in r ? [r.name] : []))),
        });
      }),
    );
  });

  it('splits two lists together as the union of splitting each', () => {
    // Law: split(A ++ B) = dedupe(split(A) ++ split(B)) per kind, which is what lets createProduct look up both lists at once.
    fc.assert(
      fc.property(fc.array(ref, { maxLength: 8 }), fc.array(ref, { maxLength: 8 }), (paidBy, paidTo) => {
        const together = splitRoleRefs([...paidBy, ...paidTo]);
        const [a, b] = [splitRoleRefs(paidBy), splitRoleRefs(paidTo)];
        expect(together).toEqual({
          ids: [...new Set([...a.ids, ...b.ids])],
          names: [...new Set([...a.names, ...b.names])],
        });
      }),
    );
  });
});
