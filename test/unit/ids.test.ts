import { afterEach, describe, expect, it, vi } from 'vitest';
import { ID_PATTERN, newId, type IdPrefix } from '../../src/core/ids.js';

// Crockford's base32 alphabet, lowercase: the digit values of an id's 26 characters.
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const decode = (text: string) => [...text].reduce((value, char) => value * 32n + BigInt(CROCKFORD.indexOf(char)), 0n);
const PREFIXES: IdPrefix[] = [
  'ws',
  'prod',
  'role',
  'li',
  'user',
  'txn',
  'ext_account',
  'alloc',
  'pf',
  'pay',
  'pacct',
  'led',
  'acct',
  'ent',
  'line',
  'link',
  'xacct',
  'tx',
];

// First in the file: the clock is set before any id fixes the last time seen (module state).
describe('ids on a set clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("start with the millisecond time in ULID layout (the ULID specification's own example)", () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_469_918_176_385 });
    const id = newId('led');
    expect(id.slice(0, 14)).toBe('led_01aryz6s41');
    expect(decode(id.slice(4, 14))).toBe(1_469_918_176_385n);
  });

  it('count up by one within a millisecond, and keep counting when the clock steps back', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_469_918_176_385 });
    const first = newId('led');
    const second = newId('led');
    vi.setSystemTime(1_469_918_170_000);
    const third = newId('led');
    expect([first, second, third].map((id) => id.slice(4, 14))).toEqual(['01aryz6s41', '01aryz6s41', '01aryz6s41']);
    expect(decode(second.slice(14)) - decode(first.slice(14))).toBe(1n);
    expect(decode(third.slice(14)) - decode(second.slice(14))).toBe(1n);
  });

  it('take the new time, with a fresh random part, once the clock moves on', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_469_918_176_386 });
    const id = newId('led');
    expect(decode(id.slice(4, 14))).toBe(1_469_918_176_386n);
    // The random part is 79 bits, leaving headroom to count up within the millisecond.
    expect(decode(id.slice(14))).toBeLessThan(1n << 79n);
  });
});

describe('ids', () => {
  it('are prefixed, well-formed and sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 50 }, () => newId('led'));
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(newId('ext_account')).toMatch(ID_PATTERN);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(PREFIXES)('are written %s_ and 26 characters of Crockford base32', (prefix) => {
    const id = newId(prefix);
    expect(id.startsWith(`${prefix}_`)).toBe(true);
    expect(id.slice(prefix.length + 1)).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
    expect(id).toMatch(ID_PATTERN);
  });

  it('carry the time they were made', () => {
    const before = BigInt(Date.now());
    const time = decode(newId('ent').slice(4, 14));
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(BigInt(Date.now()));
  });

  it.each([
    ['no prefix', '01aryz6s41tsv4rrffq69g5fav'],
    ['an uppercase body', 'led_01ARYZ6S41TSV4RRFFQ69G5FAV'],
    ['an i, l, o or u', 'led_01aryz6s41tsv4rrffq69g5fai'],
    ['25 characters', 'led_01aryz6s41tsv4rrffq69g5fa'],
    ['27 characters', 'led_01aryz6s41tsv4rrffq69g5fav0'],
    ['a digit in the prefix', 'led2_01aryz6s41tsv4rrffq69g5fav'],
  ])('ID_PATTERN refuses an id with %s', (_name, id) => {
    expect(ID_PATTERN.test(id)).toBe(false);
  });
});
