import { describe, expect, it } from 'vitest';
import { formatUtcOffset, parseUtcOffset } from '../../src/core/time.js';

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
