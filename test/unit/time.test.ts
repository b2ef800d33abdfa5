import { describe, expect, it } from 'vitest';
import {
  formatUtcOffset,
  MAX_OFFSET_MINUTES,
  MIN_OFFSET_MINUTES,
  parseUtcOffset,
  toIsoTimestamp,
} from '../../src/core/time.js';

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

  it('spans -12:00 to +14:00, the offsets in use on Earth', () => {
    expect([MIN_OFFSET_MINUTES, MAX_OFFSET_MINUTES]).toEqual([-720, 840]);
  });

  // Exhaustive, not sampled: there are only 2 × 100 × 100 texts of the form ±HH:MM.
  it('accepts exactly the 1,561 offsets from -12:00 to +14:00, each at its value in minutes', () => {
    const accepted = new Map<string, number>();
    for (const sign of ['+', '-']) {
      for (let hours = 0; hours < 100; hours += 1) {
        for (let minutes = 0; minutes < 100; minutes += 1) {
          const text = `${sign}${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
          const value = parseUtcOffset(text);
          if (value !== undefined) accepted.set(text, value);
        }
      }
    }
    // -00:00 is the one text beyond the 1,561 values: it names the same offset as +00:00.
    expect(accepted.size).toBe(1_562);
    for (let minutes = -720; minutes <= 840; minutes += 1) {
      const text = formatUtcOffset(minutes);
      expect(accepted.get(text)).toBe(minutes);
    }
    expect(accepted.get('-00:00')! + 0).toBe(0);
  });

  it('writes -00:00 back in its canonical form, +00:00', () => {
    expect(formatUtcOffset(parseUtcOffset('-00:00')!)).toBe('+00:00');
  });
});

describe('toIsoTimestamp', () => {
  it('writes an instant as ISO 8601 in UTC with milliseconds', () => {
    expect(toIsoTimestamp(new Date(Date.UTC(2026, 1, 3, 4, 5, 6, 7)))).toBe('2026-02-03T04:05:06.007Z');
    expect(toIsoTimestamp(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
  });

  it('reads a timestamp text with an offset and writes the same instant in UTC', () => {
    expect(toIsoTimestamp('2026-02-03T04:05:06+05:30')).toBe('2026-02-02T22:35:06.000Z');
    expect(toIsoTimestamp('2026-02-03T04:05:06.123-09:30')).toBe('2026-02-03T13:35:06.123Z');
  });

  it('refuses a text that names no instant rather than writing "Invalid Date"', () => {
    expect(() => toIsoTimestamp('not a time')).toThrow(new RangeError('Invalid time value'));
  });
});
