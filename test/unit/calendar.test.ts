import { describe, expect, it } from 'vitest';
import { add, coverSpan, formatSpan, parseSpan, type BucketRange } from '../../src/core/calendar.js';

const at = (text: string) => Date.parse(`${text}Z`);
const show = (ranges: BucketRange[]) => ranges.map(({ unit, from, to }) =>
  `${unit}:${from === null ? '-' : new Date(from).toISOString().slice(0, 13)}..${new Date(to).toISOString().slice(0, 13)}`);

describe('calendar spans in local time', () => {
  it('reads every written form as the span it names', () => {
    expect(parseSpan('2026', false)).toEqual({ start: at('2026-01-01T00:00'), end: at('2027-01-01T00:00'), unit: 'year' });
    expect(parseSpan('2026-2', false)).toEqual({ start: at('2026-02-01T00:00'), end: at('2026-03-01T00:00'), unit: 'month' });
    expect(parseSpan('2028-02-29', false)).toEqual({ start: at('2028-02-29T00:00'), end: at('2028-03-01T00:00'), unit: 'day' });
    expect(parseSpan('2026-12-31T23', false)).toEqual({ start: at('2026-12-31T23:00'), end: at('2027-01-01T00:00'), unit: 'hour' });
    expect(parseSpan('2026-Q4', true)).toEqual({ start: at('2026-10-01T00:00'), end: at('2027-01-01T00:00'), unit: 'quarter' });
    expect(parseSpan('2026-Q4', false)).toBeUndefined();
  });

  it('steps months and years from the first of the month, backwards too', () => {
    expect(add(at('2026-01-01T00:00'), 'month', 13)).toBe(at('2027-02-01T00:00'));
    expect(add(at('2026-03-01T00:00'), 'month', -3)).toBe(at('2025-12-01T00:00'));
    expect(formatSpan(at('2026-03-04T05:00'), 'hour')).toBe('2026-03-04T05');
    expect(formatSpan(at('2026-08-01T00:00'), 'quarter')).toBe('2026-Q3');
  });

  it('tiles a span with the fewest whole buckets', () => {
    expect(show(coverSpan(null, at('2026-05-03T04:00')))).toEqual([
      'year:-..2026-01-01T00', 'month:2026-01-01T00..2026-05-01T00', 'day:2026-05-01T00..2026-05-03T00', 'hour:2026-05-03T00..2026-05-03T04',
    ]);
    expect(show(coverSpan(at('2025-11-30T22:00'), at('2026-02-02T01:00')))).toEqual([
      'hour:2025-11-30T22..2025-12-01T00', 'month:2025-12-01T00..2026-01-01T00', 'month:2026-01-01T00..2026-02-01T00',
      'day:2026-02-01T00..2026-02-02T00', 'hour:2026-02-02T00..2026-02-02T01',
    ]);
    expect(show(coverSpan(at('2026-05-01T00:00'), at('2026-06-01T00:00')))).toEqual(['month:2026-05-01T00..2026-06-01T00']);
    expect(show(coverSpan(at('2026-05-03T04:00'), at('2026-05-03T05:00')))).toEqual(['hour:2026-05-03T04..2026-05-03T05']);
  });

  it('covers every hour of a span exactly once, whatever its ends', () => {
    const start = at('2023-11-27T13:00');
    for (let i = 0; i < 300; i += 1) {
      const from = add(start, 'hour', (i * 7919) % 20000);
      const to = add(from, 'hour', (i * 104729) % 30000);
      const ranges = coverSpan(from, to);
      expect(ranges.length).toBeLessThanOrEqual(7);
      let cursor = from;
      for (const range of ranges) {
        expect(range.from).toBe(cursor);
        expect(range.to).toBeGreaterThan(range.from!);
        cursor = range.to;
      }
      expect(cursor).toBe(to);
    }
  });
});

describe('timestamp literals', () => {
  it('writes the end of 9999 as year 10000, not in the expanded ISO form', async () => {
    const { toTimestampText } = await import('../../src/core/calendar.js');
    expect(toTimestampText(Date.UTC(10000, 0, 1))).toBe('10000-01-01 00:00:00');
    expect(toTimestampText(Date.UTC(1970, 0, 1, 5))).toBe('1970-01-01 05:00:00');
  });
});
