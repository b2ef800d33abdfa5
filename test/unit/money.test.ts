import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, INT96_MAX, INT96_MIN, parseAmount } from '../../src/core/money.js';

// Amounts are Int96 strings on the wire (-(2^120-1) to 2^120-1) and bigint inside; every check
// below stays in bigint and strings, so a value past 2^53 would show any float rounding.

const inRange = fc.bigInt({ min: INT96_MIN, max: INT96_MAX });

describe('the Int96 range', () => {
  it('is symmetric, 120 bits of magnitude either side of zero', () => {
    expect(INT96_MAX.toString()).toBe('1329227995784915872903807060280344575');
    expect(INT96_MIN.toString()).toBe('-1329227995784915872903807060280344575');
  });
});

describe('parseAmount', () => {
  it.each([
    ['0', 0n],
    ['-1', -1n],
    ['12500', 12500n],
    [INT96_MAX.toString(), INT96_MAX],
    [`-${INT96_MAX}`, -INT96_MAX],
  ])('accepts %s', (text, value) => {
    expect(parseAmount(text)).toBe(value);
  });

  it.each(['', '-', '-0', '01', '1.5', '1e3', ' 1', '+1', (INT96_MAX + 1n).toString(), `-${INT96_MAX + 1n}`])(
    'rejects %j',
    (text) => {
      expect(parseAmount(text)).toBeUndefined();
    },
  );

  it('keeps every digit of a 37-digit amount (no float rounding)', () => {
    expect(parseAmount('1329227995784915872903807060280344575')?.toString()).toBe(
      '1329227995784915872903807060280344575',
    );
  });

  it('reads neighbours past 2^53 as distinct values, as a float could not', () => {
    expect(parseAmount('9007199254740993')).toBe(9007199254740993n);
    expect(parseAmount('9007199254740992')).toBe(9007199254740992n);
  });

  it('reads back any in-range amount it formats, digit for digit', () => {
    fc.assert(
      fc.property(inRange, (value) => {
        expect(parseAmount(formatAmount(value))).toBe(value);
      }),
    );
  });

  it('refuses any integer beyond the range, on either side', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT96_MAX + 1n, max: 1n << 200n }), fc.boolean(), (magnitude, negative) => {
        expect(parseAmount((negative ? -magnitude : magnitude).toString())).toBeUndefined();
      }),
    );
  });

  // One written form per value: otherwise two requests for the same amount would fingerprint apart.
  it('refuses every non-canonical spelling of an in-range amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: INT96_MAX }), (value) => {
        const digits = value.toString();
        for (const text of [
          `0${digits}`,
          `+${digits}`,
          ` ${digits}`,
          `${digits} `,
          `${digits}.0`,
          `${digits}n`,
          `-0${digits}`,
        ]) {
          expect(parseAmount(text)).toBeUndefined();
        }
      }),
    );
  });
});

describe('formatAmount', () => {
  it.each([
    [0n, '0'],
    [-1n, '-1'],
    [12500n, '12500'],
    [INT96_MAX, '1329227995784915872903807060280344575'],
    [INT96_MIN, '-1329227995784915872903807060280344575'],
  ])('writes %s as %j', (value, text) => {
    expect(formatAmount(value)).toBe(text);
  });

  it('writes any in-range amount in the one form parseAmount accepts back unchanged', () => {
    fc.assert(
      fc.property(inRange, (value) => {
        const text = formatAmount(value);
        expect(text).toMatch(/^-?(0|[1-9][0-9]*)$/);
        expect(formatAmount(parseAmount(text)!)).toBe(text);
      }),
    );
  });
});
