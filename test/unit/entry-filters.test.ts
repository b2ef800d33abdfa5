import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listFilter, MAX_ALL_LIST, MAX_FILTER_LIST, pairFilter, valueFilter } from '../../src/core/entryFilters.js';
import { refusalOf } from '../support/domainErrors.js';

// The filter sets of entry and line lists become one storage-neutral form that db/ledgerLists.ts
// turns into SQL: an empty `in` list must stay an empty list (it matches nothing), an absent one
// must stay absent (no condition), and every list is bounded before it reaches the database.

const pair = (key: string, value: string) => ({ key, value });
const pairs = (count: number) => Array.from({ length: count }, (_, i) => pair(`k${i}`, `v${i}`));
const texts = (count: number) => Array.from({ length: count }, (_, i) => `t${i}`);

describe('limits', () => {
  it('are 100 values per list and 10 per all list, as the SDL states', () => {
    expect([MAX_FILTER_LIST, MAX_ALL_LIST]).toEqual([100, 10]);
  });
});

describe('pairFilter (tags and groups)', () => {
  it('sets no condition for an empty filter', () => {
    expect(pairFilter({}, 'tag')).toStrictEqual({
      anyOf: undefined,
      allOf: undefined,
      noneOf: undefined,
      anyKey: undefined,
      noKey: undefined,
      contains: undefined,
    });
  });

  it('puts equalTo before the in list, and the same for the negated and key forms', () => {
    expect(
      pairFilter(
        {
          equalTo: pair('a', '1'),
          in: [pair('b', '2')],
          notEqualTo: pair('c', '3'),
          notIn: [pair('d', '4')],
          keyEqualTo: 'e',
          keyIn: ['f'],
          notKeyEqualTo: 'g',
          notKeyIn: ['h'],
          all: [pair('i', '5'), pair('j', '6')],
          contains: pair('k', 'sub'),
        },
        'group',
      ),
    ).toStrictEqual({
      anyOf: [pair('a', '1'), pair('b', '2')],
      noneOf: [pair('c', '3'), pair('d', '4')],
      anyKey: ['e', 'f'],
      noKey: ['g', 'h'],
      allOf: [pair('i', '5'), pair('j', '6')],
      contains: pair('k', 'sub'),
    });
  });

  it('keeps an empty in list as an empty list, which matches nothing', () => {
    expect(pairFilter({ in: [] }, 'tag').anyOf).toEqual([]);
    expect(pairFilter({ keyIn: [] }, 'tag').anyKey).toEqual([]);
  });

  it('reads the deprecated not filter as notKeyEqualTo and notKeyIn, the new fields winning', () => {
    expect(pairFilter({ not: { keyEqualTo: 'x', keyIn: ['y', 'z'] } }, 'group').noKey).toEqual(['x', 'y', 'z']);
    expect(
      pairFilter({ notKeyEqualTo: 'new', notKeyIn: ['newer'], not: { keyEqualTo: 'old', keyIn: ['older'] } }, 'group')
        .noKey,
    ).toEqual(['new', 'newer']);
  });

  it('copies the lists it is given', () => {
    const list = [pair('a', '1')];
    const filter = pairFilter({ in: list, all: list }, 'tag');
    list.push(pair('b', '2'));
    expect([filter.anyOf, filter.allOf]).toEqual([[pair('a', '1')], [pair('a', '1')]]);
  });

  it('takes 100 values in a list and 10 in all, refusing one more with the field named', () => {
    expect(pairFilter({ in: pairs(100), all: pairs(10) }, 'tag').anyOf).toHaveLength(100);
    const refused = (input: Parameters<typeof pairFilter>[0], field: string) =>
      refusalOf(() => pairFilter(input, field)).message;
    expect(refused({ all: pairs(11) }, 'tag')).toBe('The tag.all filter takes at most 10 values.');
    expect(refused({ in: pairs(101) }, 'tag')).toBe('The tag.in filter takes at most 100 values.');
    expect(refused({ notIn: pairs(101) }, 'group')).toBe('The group.notIn filter takes at most 100 values.');
    expect(refused({ keyIn: texts(101) }, 'group')).toBe('The group.keyIn filter takes at most 100 values.');
    expect(refused({ notKeyIn: texts(101) }, 'group')).toBe('The group.notKeyIn filter takes at most 100 values.');
    expect(refused({ not: { keyIn: texts(101) } }, 'group')).toBe(
      'The group.notKeyIn filter takes at most 100 values.',
    );
    expect(refusalOf(() => pairFilter({ in: pairs(101) }, 'tag')).code).toBe('invalid_input_provided');
  });

  // Law: anyOf is [equalTo] ++ in when either is given, in that order, and absent otherwise.
  it('builds anyOf from equalTo and in for any combination', () => {
    const maybePair = fc.option(fc.record({ key: fc.string(), value: fc.string() }), { nil: undefined });
    const maybeList = fc.option(fc.array(fc.record({ key: fc.string(), value: fc.string() }), { maxLength: 100 }), {
      nil: undefined,
    });
    fc.assert(
      fc.property(maybePair, maybeList, (equalTo, list) => {
        const expected =
          equalTo === undefined && list === undefined ? undefined : [...(equalTo ? [equalTo] : []), ...(list ?? [])];
        expect(pairFilter({ equalTo, in: list }, 'tag').anyOf).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});

describe('valueFilter (types, type versions, line keys)', () => {
  it('sets no condition for an empty filter', () => {
    expect(valueFilter({}, 'type')).toStrictEqual({ anyOf: undefined, noneOf: undefined });
  });

  it('joins equalTo with in, and notEqualTo with notIn', () => {
    expect(valueFilter({ equalTo: 'a', in: ['b', 'c'], notEqualTo: 'd', notIn: ['e'] }, 'type')).toStrictEqual({
      anyOf: ['a', 'b', 'c'],
      noneOf: ['d', 'e'],
    });
  });

  it('keeps an empty in list (nothing matches) but drops an empty notIn list (nothing is excluded)', () => {
    expect(valueFilter({ in: [], notIn: [] }, 'type')).toStrictEqual({ anyOf: [], noneOf: undefined });
  });

  it('refuses more than 100 values with the field named', () => {
    expect(valueFilter({ in: texts(100) }, 'type').anyOf).toHaveLength(100);
    expect(refusalOf(() => valueFilter({ in: texts(101) }, 'typeVersion'))).toEqual({
      code: 'invalid_input_provided',
      message: 'The typeVersion.in filter takes at most 100 values.',
    });
    expect(refusalOf(() => valueFilter({ notIn: texts(101) }, 'key')).message).toBe(
      'The key.notIn filter takes at most 100 values.',
    );
  });

  // Law: noneOf is [notEqualTo] ++ notIn, or absent when that is empty.
  it('builds noneOf from notEqualTo and notIn for any combination', () => {
    const list100 = fc.option(fc.array(fc.string(), { maxLength: 100 }), { nil: null });
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: null }), list100, (one, list) => {
        const all = [...(one !== null ? [one] : []), ...(list ?? [])];
        expect(valueFilter({ notEqualTo: one, notIn: list }, 'type').noneOf).toEqual(all.length ? all : undefined);
      }),
      { numRuns: 150 },
    );
  });
});

describe('listFilter', () => {
  it('filters nothing and hides hidden entries when no filter set is given', () => {
    expect(listFilter(undefined, 0)).toEqual({ postedIn: [], showHidden: false });
    expect(listFilter(null, 0)).toEqual({ postedIn: [], showHidden: false });
  });

  it('reads posted and created bounds as instants', () => {
    const filter = listFilter(
      {
        posted: { after: '2026-05-01T00:00:00.000Z', before: '2026-06-01T00:00:00.000Z' },
        created: { after: '2026-04-30T23:59:59.999Z' },
      },
      0,
    );
    expect(filter.postedAfter?.toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect(filter.postedBefore?.toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(filter.createdAfter?.toISOString()).toBe('2026-04-30T23:59:59.999Z');
    expect(filter.createdBefore).toBeUndefined();
  });

  it('turns a date filter into instant ranges, honouring the ledger offset only where asked', () => {
    const iso = (ranges: { from: Date; to: Date }[][]) =>
      ranges.map((any) => any.map(({ from, to }) => `${from.toISOString()}..${to.toISOString()}`));
    expect(iso(listFilter({ date: { equalTo: '2026-05-03', within: '2026-05' } }, 120).postedIn)).toEqual([
      ['2026-05-03T00:00:00.000Z..2026-05-04T00:00:00.000Z'],
      ['2026-05-01T00:00:00.000Z..2026-06-01T00:00:00.000Z'],
    ]);
    expect(iso(listFilter({ date: { withinBalanceUTCOffset: '2026-05' } }, 120).postedIn)).toEqual([
      ['2026-04-30T22:00:00.000Z..2026-05-31T22:00:00.000Z'],
    ]);
    expect(refusalOf(() => listFilter({ date: { within: '2026', withinBalanceUTCOffset: '2026' } }, 0))).toEqual({
      code: 'invalid_input_provided',
      message: 'A date filter takes within or withinBalanceUTCOffset, not both.',
    });
  });

  it('passes the reversal flags through and builds the tag filter', () => {
    expect(listFilter({ isReversal: true, isReversed: false, tag: { keyEqualTo: 'order' } }, 0)).toEqual({
      postedIn: [],
      showHidden: true,
      isReversal: true,
      isReversed: false,
      tags: pairFilter({ keyEqualTo: 'order' }, 'tag'),
    });
    expect(refusalOf(() => listFilter({ tag: { in: pairs(101) } }, 0)).message).toBe(
      'The tag.in filter takes at most 100 values.',
    );
  });

  // Law: hidden entries are shown exactly when showHidden, isReversal or isReversed is true.
  it('shows hidden entries exactly when showHidden or a reversal flag is true', () => {
    const flag = fc.constantFrom(true, false, null, undefined);
    fc.assert(
      fc.property(flag, flag, flag, (showHidden, isReversal, isReversed) => {
        const filter = listFilter({ showHidden, isReversal, isReversed }, 0);
        expect(filter.showHidden).toBe(showHidden === true || isReversal === true || isReversed === true);
        expect([filter.isReversal, filter.isReversed]).toEqual([isReversal ?? undefined, isReversed ?? undefined]);
      }),
      { numRuns: 64 },
    );
  });
});
