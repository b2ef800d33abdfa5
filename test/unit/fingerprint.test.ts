import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalText, fingerprint } from '../../src/core/fingerprint.js';

/** The same value with every object's keys in reverse order, at every depth. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reordered(item)]),
  );
}

/** The same value with an undefined member added to every object. */
function withUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withUndefined);
  if (value === null || typeof value !== 'object') return value;
  return {
    ...Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withUndefined(item)])),
    '\u0000absent': undefined,
  };
}

describe('fingerprint', () => {
  it('ignores key order and undefined members', () => {
    expect(fingerprint({ a: 1, b: { c: 2, d: undefined } })).toBe(fingerprint({ b: { c: 2 }, a: 1 }));
  });

  it('tells different payloads apart', () => {
    expect(fingerprint({ name: 'Main' })).not.toBe(fingerprint({ name: 'Main ledger' }));
  });

  // Stored request hashes outlive a release: a replay after an upgrade must still match its key.
  it('is the base64url SHA-256 of the canonical JSON, the same in every version', () => {
    expect(fingerprint({ name: 'Main' })).toBe('ZWkXpne-7DbQ-W1W093EciVmXZZ0Jicw8Nr3y9m4LY4');
    expect(fingerprint({})).toBe('RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o');
  });

  it('keeps array order: a list in another order is another request', () => {
    expect(fingerprint({ lines: ['a', 'b'] })).not.toBe(fingerprint({ lines: ['b', 'a'] }));
  });

  it('tells a string from the number it spells, and null from an absent member', () => {
    expect(fingerprint({ amount: '1' })).not.toBe(fingerprint({ amount: 1 }));
    expect(fingerprint({ parentId: null })).not.toBe(fingerprint({}));
  });

  it('is stable under any key order and any undefined members, at every depth', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const expected = fingerprint(value);
        expect(fingerprint(reordered(value))).toBe(expected);
        expect(fingerprint(withUndefined(value))).toBe(expected);
      }),
    );
  });

  it('gives values of different canonical JSON different fingerprints', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));
        expect(fingerprint(a)).not.toBe(fingerprint(b));
      }),
    );
  });
});

describe('canonicalJson', () => {
  it('sorts keys by code unit, drops undefined members and writes undefined array items as null', () => {
    expect(canonicalJson({ b: [1, { d: 'x', c: undefined }, undefined], a: null, é: true, Z: 1.5 })).toBe(
      '{"Z":1.5,"a":null,"b":[1,{"d":"x"},null],"é":true}',
    );
  });

  it.each([
    ['a string', 'Main', '"Main"'],
    ['a number', 12.5, '12.5'],
    ['null', null, 'null'],
    ['undefined', undefined, 'null'],
    ['an empty object', {}, '{}'],
    ['an empty array', [], '[]'],
  ])('writes %s as plain JSON', (_name, value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  it('reads back as the same JSON value and is its own canonical form', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
    );
  });
});

describe('canonicalJson against the key-by-key reference', () => {
  it('writes every JSON value exactly as canonicalText does', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalText(value));
      }),
      { numRuns: 500 },
    );
  });

  // Engines write array-index keys first, in numeric order; the canonical order is by code unit.
  it('sorts array-index keys by code unit too, at any depth', () => {
    const value = { b: [{ '10': 'x', '9': 'y', a: 1 }], a: { '2': true, '11': false } };
    expect(canonicalJson(value)).toBe('{"a":{"11":false,"2":true},"b":[{"10":"x","9":"y","a":1}]}');
    expect(canonicalJson(value)).toBe(canonicalText(value));
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(fc.nat().map(String), fc.string(), fc.constant('__proto__')), fc.jsonValue()),
        (value) => {
          expect(canonicalJson(value)).toBe(canonicalText(value));
        },
      ),
      { numRuns: 300 },
    );
  });

  // Bodies nest as deep as a 1 MB limit allows; the copy must not fail sooner than the old writer.
  it('writes values nested as deep as the key-by-key writer manages', () => {
    const nested = (depth: number) => {
      let value: unknown = 'leaf';
      for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { v: value };
      return value;
    };
    // The deepest value the key-by-key writer manages on this thread's stack.
    const depth = [8000, 6000, 4000, 3000, 2000, 1000].find((candidate) => {
      try {
        canonicalText(nested(candidate));
        return true;
      } catch {
        return false;
      }
    })!;
    expect(canonicalJson(nested(depth))).toBe(canonicalText(nested(depth)));
  });

  it('writes members it cannot express as null, and dates and objects without prototype as their members', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: 2 });
    const value = { f: () => 1, s: Symbol('s'), d: new Date(0), bare, list: [() => 1, undefined] };
    expect(canonicalJson(value)).toBe(canonicalText(value));
    expect(canonicalJson(value)).toBe('{"bare":{"a":2,"b":1},"d":{},"f":null,"list":[null,null],"s":null}');
  });
});
