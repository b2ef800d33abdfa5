import { describe, expect, it } from 'vitest';
import { INT96_MAX, parseAmount } from '../../src/core/money.js';

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
    expect(parseAmount('1329227995784915872903807060280344575')?.toString()).toBe('1329227995784915872903807060280344575');
  });
});
