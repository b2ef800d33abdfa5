import { describe, expect, it, vi } from 'vitest';

// Every random byte 0xff: the low half of the random part starts at its largest value, so the
// next id within the millisecond carries into the high half.
vi.mock('node:crypto', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:crypto')>()),
  randomFillSync: (buffer: Buffer) => buffer.fill(0xff),
}));

const { newId } = await import('../../src/core/ids.js');
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const decode = (text: string) => [...text].reduce((value, char) => value * 32n + BigInt(CROCKFORD.indexOf(char)), 0n);

describe('ids counting within a millisecond', () => {
  it('carry from the low half of the random part into the high half', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_469_918_176_385 });
    try {
      const first = newId('ent');
      const second = newId('ent');
      // All ones: the 39 bits of the high half (one bit kept for counting) and the 40 of the low.
      expect(decode(first.slice(14))).toBe((1n << 79n) - 1n);
      expect(decode(second.slice(14)) - decode(first.slice(14))).toBe(1n);
      expect(second > first).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
