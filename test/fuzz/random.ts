// A small seeded generator (mulberry32): the same seed gives the same requests, so any failure
// the fuzz suite reports can be replayed exactly with FUZZ_SEED.

export type Random = {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
};

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)],
    chance: (probability) => next() < probability,
  };
}

/** Strings that break naive servers: storage, encoding, length, injection and template edge cases. */
export const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  'nul\u0000inside',
  'lone\ud800high',
  '\udc00lone-low',
  'reversed\udc00\ud800pair',
  '\u202eright-to-left\u202c',
  `e${'\u0301'.repeat(200)}`,
  '💸🧾'.repeat(50),
  'x'.repeat(5000),
  "' or 1=1 --",
  '"; drop table ledgers; --',
  '../../etc/passwd',
  '{{template}}',
  'a/b#c:d',
  '%00%ff%',
  '\r\n\t',
  '-0',
  '1e400',
  '99999999999999999999999999999999999999999999999999',
  '\u0000',
];

/** True when PostgreSQL text could not hold the string: such a value must always be refused. */
export function unstorable(value: string): boolean {
  return value.includes('\u0000') || !(value as unknown as { isWellFormed(): boolean }).isWellFormed();
}
