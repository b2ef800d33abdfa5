import { describe, expect, it } from 'vitest';
import { INT96_MAX, parseAmount } from '../../src/core/money.js';
import { formatUtcOffset, parseUtcOffset } from '../../src/core/time.js';

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

describe('UTC offsets', () => {
  it.each([
    ['+00:00', 0],
    ['-08:00', -480],
    ['+05:30', 330],
    ['+05:45', 345],
    ['-09:30', -570],
    ['+14:00', 840],
    ['-12:00', -720],
  ])('parses %s as %i minutes and formats it back', (text, minutes) => {
    expect(parseUtcOffset(text)).toBe(minutes);
    expect(formatUtcOffset(minutes)).toBe(text);
  });

  it.each(['+25:00', '+14:01', '-12:30', '05:30', '+5:30', '+05:60', 'Z', '+0530'])('rejects %s', (text) => {
    expect(parseUtcOffset(text)).toBeUndefined();
  });
});
