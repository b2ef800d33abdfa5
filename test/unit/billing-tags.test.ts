import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTagOps, checkTagList, type Tag, type TagOps } from '../../src/core/billingTags.js';
import { ERROR_CATALOGUE, type ApiErrorCode } from '../../src/core/errors.js';
import { refusalOf } from '../support/domainErrors.js';

// Tags of invoices, line items and transactions: keys unique within a list; TagOps name each key at
// most once across create, update, set and delete, "so the order in which they apply does not matter".

const CONTRACT = 'The request does not match the contract.';
const asMap = (tags: readonly Tag[]) => Object.fromEntries(tags.map((tag) => [tag.key, tag.value]));

const key = fc.constantFrom('channel', 'grind', 'region', 'source', 'tier', 'a', 'B');
const value = fc.constantFrom('', 'web', 'bank-feed', 'whole-bean', 'x y');
const tagList = fc.uniqueArray(fc.record({ key, value }), { selector: (tag) => tag.key, maxLength: 7 });

/** A tag list and ops valid against it: distinct keys across the lists, create only new keys, update only existing ones. */
const validCase = tagList.chain((current) => {
  const existing = new Set(current.map((tag) => tag.key));
  const op = fc.record({ key, value, list: fc.constantFrom('create', 'update', 'set', 'delete') });
  return fc.uniqueArray(op, { selector: (named) => named.key, maxLength: 7 }).map((named) => {
    const ops: Required<TagOps> = { create: [], update: [], set: [], delete: [] };
    for (const op of named) {
      // Fit each op to the rule of its list: create needs a new key, update an existing one.
      const list =
        op.list === 'create' && existing.has(op.key)
          ? 'set'
          : op.list === 'update' && !existing.has(op.key)
            ? 'set'
            : op.list;
      if (list === 'delete') ops.delete.push({ key: op.key });
      else ops[list].push({ key: op.key, value: op.value });
    }
    return { current, ops };
  });
});

describe('checkTagList', () => {
  it('copies a list with unique keys as key and value only', () => {
    const extra = { key: 'channel', value: 'web', colour: 'red' } as Tag;
    expect(checkTagList([extra, { key: 'grind', value: '' }], '/body/tags')).toEqual([
      { key: 'channel', value: 'web' },
      { key: 'grind', value: '' },
    ]);
    expect(checkTagList(undefined, '/body/tags')).toEqual([]);
  });

  it('points at every repetition of a key, not at its first mention', () => {
    const error = refusalOf(() =>
      checkTagList(
        [
          { key: 'a', value: '1' },
          { key: 'b', value: '2' },
          { key: 'a', value: '3' },
          { key: 'a', value: '4' },
        ],
        '/body/line_items/1/tags',
      ),
    );
    expect([error.code, ERROR_CATALOGUE[error.code as ApiErrorCode].status, error.message]).toEqual([
      'invalid_request',
      400,
      CONTRACT,
    ]);
    expect(error.details).toEqual({
      violations: [
        { pointer: '/body/line_items/1/tags/2/key', message: 'repeats the key a' },
        { pointer: '/body/line_items/1/tags/3/key', message: 'repeats the key a' },
      ],
    });
  });

  it('treats keys as exact strings: case and spaces make different keys', () => {
    expect(
      checkTagList(
        [
          { key: 'a', value: '' },
          { key: 'A', value: '' },
          { key: 'a ', value: '' },
        ],
        '/body/tags',
      ),
    ).toHaveLength(3);
  });

  it('accepts a list exactly when its keys are distinct', () => {
    // Law: checkTagList(L) succeeds (returning L) iff keys(L) has no repeat; else one violation per repeat.
    fc.assert(
      fc.property(fc.array(fc.record({ key, value }), { maxLength: 8 }), (tags) => {
        const repeats = tags.length - new Set(tags.map((tag) => tag.key)).size;
        if (repeats === 0) expect(checkTagList(tags, '/body/tags')).toEqual(tags);
        else expect(refusalOf(() => checkTagList(tags, '/body/tags')).details?.violations).toHaveLength(repeats);
      }),
    );
  });
});

describe('applyTagOps', () => {
  const current: Tag[] = [
    { key: 'channel', value: 'web' },
    { key: 'grind', value: 'whole-bean' },
    { key: 'tier', value: 'gold' },
  ];

  it('creates, updates, sets and deletes; existing tags keep their place, new ones come last', () => {
    expect(
      applyTagOps(
        current,
        {
          create: [{ key: 'region', value: 'eu' }],
          update: [{ key: 'grind', value: 'ground' }],
          set: [
            { key: 'channel', value: 'shop' },
            { key: 'source', value: 'import' },
          ],
          delete: [{ key: 'tier' }, { key: 'never-there' }],
        },
        '/body/tags',
      ),
    ).toEqual([
      { key: 'channel', value: 'shop' },
      { key: 'grind', value: 'ground' },
      { key: 'region', value: 'eu' },
      { key: 'source', value: 'import' },
    ]);
  });

  it('changes nothing for empty ops and does not touch the list it was given', () => {
    const before = structuredClone(current);
    expect(applyTagOps(current, {}, '/body/tags')).toEqual(current);
    applyTagOps(current, { delete: [{ key: 'channel' }], set: [{ key: 'grind', value: 'x' }] }, '/body/tags');
    expect(current).toEqual(before);
  });

  it('refuses creating a key that exists and updating one that does not, pointing at each element', () => {
    const error = refusalOf(() =>
      applyTagOps(
        current,
        {
          create: [
            { key: 'new', value: '1' },
            { key: 'channel', value: 'shop' },
          ],
          update: [{ key: 'missing', value: '2' }],
        },
        '/body/tags',
      ),
    );
    expect([error.code, error.message]).toEqual(['invalid_request', CONTRACT]);
    expect(error.details).toEqual({
      violations: [
        { pointer: '/body/tags/create/1/key', message: 'key channel already exists; use update or set' },
        { pointer: '/body/tags/update/0/key', message: 'key missing does not exist; use create or set' },
      ],
    });
  });

  it('refuses a key named twice in one request, within a list or across lists', () => {
    const error = refusalOf(() =>
      applyTagOps(
        current,
        {
          set: [
            { key: 'region', value: 'eu' },
            { key: 'region', value: 'us' },
          ],
          delete: [{ key: 'channel' }],
          update: [{ key: 'channel', value: 'shop' }],
        },
        '/body/line_items/update/0/tags',
      ),
    );
    // Lists are read in the order create, update, set, delete: the second mention is the one refused.
    expect(error.details).toEqual({
      violations: [
        { pointer: '/body/line_items/update/0/tags/set/1/key', message: 'names the key region a second time' },
        { pointer: '/body/line_items/update/0/tags/delete/0/key', message: 'names the key channel a second time' },
      ],
    });
  });

  it('gives the tags the ops describe, keys unique', () => {
    // Law: as a map, result = current ∪ create ∪ set, updated by update, minus delete; keys never repeat.
    fc.assert(
      fc.property(validCase, ({ current: tags, ops }) => {
        const result = applyTagOps(tags, ops, '/body/tags');
        const expected = asMap(tags);
        for (const tag of [...ops.create, ...ops.update, ...ops.set]) expected[tag.key] = tag.value;
        for (const { key: gone } of ops.delete) delete expected[gone];
        expect(asMap(result)).toEqual(expected);
        expect(new Set(result.map((tag) => tag.key)).size).toBe(result.length);
      }),
    );
  });

  it('gives the same tags whatever order the four lists are applied in', () => {
    // Law: with each key named once, applying the lists one request at a time, in any order, equals applying them together.
    const order = fc.shuffledSubarray(['create', 'update', 'set', 'delete'] as const, { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(validCase, order, ({ current: tags, ops }, lists) => {
        const together = applyTagOps(tags, ops, '/body/tags');
        const stepwise = lists.reduce<Tag[]>(
          (acc, list) => applyTagOps(acc, { [list]: ops[list] }, '/body/tags'),
          tags,
        );
        expect(asMap(stepwise)).toEqual(asMap(together));
      }),
    );
  });

  it('is idempotent for set and delete: applying them twice equals applying them once', () => {
    // Law: f(f(T)) = f(T) when the ops are only set and delete.
    fc.assert(
      fc.property(validCase, ({ current: tags, ops }) => {
        const only = { set: ops.set, delete: ops.delete };
        const once = applyTagOps(tags, only, '/body/tags');
        expect(applyTagOps(once, only, '/body/tags')).toEqual(once);
      }),
    );
  });
});
