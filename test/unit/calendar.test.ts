import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  add,
  coverSpan,
  END_LOCAL,
  FIRST_LOCAL,
  floorTo,
  formatSpan,
  parseSpan,
  toTimestampText,
  type BucketRange,
  type Unit,
} from '../../src/core/calendar.js';
import { parseUtcOffset } from '../../src/core/time.js';

const at = (text: string) => Date.parse(`${text}Z`);
const show = (ranges: BucketRange[]) =>
  ranges.map(
    ({ unit, from, to }) =>
      `${unit}:${from === null ? '-' : new Date(from).toISOString().slice(0, 13)}..${new Date(to).toISOString().slice(0, 13)}`,
  );

describe('calendar spans in local time', () => {
  it('reads every written form as the span it names', () => {
    expect(parseSpan('2026', false)).toEqual({
      start: at('2026-01-01T00:00'),
      end: at('2027-01-01T00:00'),
      unit: 'year',
    });
    expect(parseSpan('2026-2', false)).toEqual({
      start: at('2026-02-01T00:00'),
      end: at('2026-03-01T00:00'),
      unit: 'month',
    });
    expect(parseSpan('2028-02-29', false)).toEqual({
      start: at('2028-02-29T00:00'),
      end: at('2028-03-01T00:00'),
      unit: 'day',
    });
    expect(parseSpan('2026-12-31T23', false)).toEqual({
      start: at('2026-12-31T23:00'),
      end: at('2027-01-01T00:00'),
      unit: 'hour',
    });
    expect(parseSpan('2026-Q4', true)).toEqual({
      start: at('2026-10-01T00:00'),
      end: at('2027-01-01T00:00'),
      unit: 'quarter',
    });
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
      'year:-..2026-01-01T00',
      'month:2026-01-01T00..2026-05-01T00',
      'day:2026-05-01T00..2026-05-03T00',
      'hour:2026-05-03T00..2026-05-03T04',
    ]);
    expect(show(coverSpan(at('2025-11-30T22:00'), at('2026-02-02T01:00')))).toEqual([
      'hour:2025-11-30T22..2025-12-01T00',
      'month:2025-12-01T00..2026-01-01T00',
      'month:2026-01-01T00..2026-02-01T00',
      'day:2026-02-01T00..2026-02-02T00',
      'hour:2026-02-02T00..2026-02-02T01',
    ]);
    expect(show(coverSpan(at('2026-05-01T00:00'), at('2026-06-01T00:00')))).toEqual([
      'month:2026-05-01T00..2026-06-01T00',
    ]);
    expect(show(coverSpan(at('2026-05-03T04:00'), at('2026-05-03T05:00')))).toEqual([
      'hour:2026-05-03T04..2026-05-03T05',
    ]);
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

// The algebra under every balance read. A ledger's local clock reads UTC plus its balanceUTCOffset
// (ledger_local_hour in src/db/functions/balances.sql); the calendar works in that local time.

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const UNITS: Unit[] = ['hour', 'day', 'month', 'year'];
const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysIn = (year: number, month: number) =>
  [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
const toLocal = (utc: number, offsetMinutes: number) => utc + offsetMinutes * MINUTE;
const toUtc = (local: number, offsetMinutes: number) => local - offsetMinutes * MINUTE;

// Offsets that are not whole hours and the extremes, beside any whole minute from -12:00 to +14:00.
const offsetArb = fc.oneof(fc.constantFrom(345, -570, 840, -720, 330, 0), fc.integer({ min: -720, max: 840 }));
// Any instant of 1970 to 9999, or one within 15 hours of a UTC month start (a local boundary at any offset).
const LOW = Date.UTC(1970, 0, 2);
const HIGH = Date.UTC(9999, 11, 30);
const instantArb = fc.oneof(
  fc.date({ min: new Date(LOW), max: new Date(HIGH), noInvalidDate: true }).map((date) => date.getTime()),
  fc
    .record({
      year: fc.integer({ min: 1970, max: 9999 }),
      month: fc.integer({ min: 0, max: 11 }),
      minutes: fc.integer({ min: -900, max: 900 }),
    })
    .map(({ year, month, minutes }) => Math.min(Math.max(Date.UTC(year, month, 1) + minutes * MINUTE, LOW), HIGH)),
);
// Years with the Gregorian exceptions (2000 and 2400 leap, 2100 and 2200 not) beside any year in range.
const yearArb = fc.oneof(
  fc.constantFrom(1970, 2000, 2024, 2100, 2200, 2400, 9999),
  fc.integer({ min: 1970, max: 9999 }),
);
const unitArb = fc.constantFrom(...UNITS);

describe('periods at any UTC offset', () => {
  it.each([
    ['+05:45', '2026-03-01', '2026-02-28T18:15:00.000Z', '2026-03-01T18:15:00.000Z'],
    ['-09:30', '2026-03-01', '2026-03-01T09:30:00.000Z', '2026-03-02T09:30:00.000Z'],
    ['+14:00', '2026', '2025-12-31T10:00:00.000Z', '2026-12-31T10:00:00.000Z'],
    ['-12:00', '2024-02', '2024-02-01T12:00:00.000Z', '2024-03-01T12:00:00.000Z'],
    ['+05:45', '2026-03-01T00', '2026-02-28T18:15:00.000Z', '2026-02-28T19:15:00.000Z'],
    ['+05:30', '2026-Q1', '2025-12-31T18:30:00.000Z', '2026-03-31T18:30:00.000Z'],
  ])('at %s, %s runs from %s to %s in UTC', (offset, text, from, to) => {
    const minutes = parseUtcOffset(offset)!;
    const span = parseSpan(text, true)!;
    expect([
      new Date(toUtc(span.start, minutes)).toISOString(),
      new Date(toUtc(span.end, minutes)).toISOString(),
    ]).toEqual([from, to]);
  });

  it('put every instant in exactly one period of each unit, whose text names that same period', () => {
    fc.assert(
      fc.property(instantArb, offsetArb, unitArb, (utc, offset, unit) => {
        const local = toLocal(utc, offset);
        const start = floorTo(local, unit);
        const end = add(start, unit, 1);
        expect(toUtc(start, offset)).toBeLessThanOrEqual(utc);
        expect(toUtc(end, offset)).toBeGreaterThan(utc);
        expect(parseSpan(formatSpan(local, unit), false)).toEqual({ start, end, unit });
        // The period's last millisecond (a LastMoment) is still in it; the next one starts the next period.
        expect(floorTo(end - 1, unit)).toBe(start);
        expect(floorTo(end, unit)).toBe(end);
      }),
    );
  });

  it('never overlap: two instants share a period or the earlier one ends before the later one starts', () => {
    fc.assert(
      fc.property(instantArb, instantArb, offsetArb, unitArb, (a, b, offset, unit) => {
        const [early, late] = [Math.min(a, b), Math.max(a, b)].map((utc) => floorTo(toLocal(utc, offset), unit));
        if (early !== late) expect(add(early, unit, 1)).toBeLessThanOrEqual(late);
      }),
    );
  });

  it('leave no gap: n periods after any period start exactly where the n-th one ends', () => {
    fc.assert(
      fc.property(instantArb, offsetArb, unitArb, fc.integer({ min: 1, max: 40 }), (utc, offset, unit, count) => {
        let cursor = floorTo(toLocal(utc, offset), unit);
        const last = add(cursor, unit, count);
        fc.pre(last <= END_LOCAL);
        for (let step = 0; step < count; step += 1) {
          const next = add(cursor, unit, 1);
          expect(floorTo(next - 1, unit)).toBe(cursor);
          cursor = next;
        }
        expect(cursor).toBe(last);
      }),
    );
  });

  it("map a quarter's text back to the three months that contain the instant", () => {
    fc.assert(
      fc.property(instantArb, offsetArb, (utc, offset) => {
        const local = toLocal(utc, offset);
        const quarter = parseSpan(formatSpan(local, 'quarter'), true)!;
        const month = new Date(local).getUTCMonth();
        const start = Date.UTC(new Date(local).getUTCFullYear(), month - (month % 3), 1);
        expect(quarter).toEqual({ start, end: add(start, 'month', 3), unit: 'quarter' });
        expect(quarter.start).toBeLessThanOrEqual(local);
        expect(quarter.end).toBeGreaterThan(local);
      }),
    );
  });
});

describe('period lengths across month lengths and leap years', () => {
  it('are 3,600,000 ms an hour and 86,400,000 ms a day, at any offset (local time has no DST)', () => {
    fc.assert(
      fc.property(instantArb, offsetArb, (utc, offset) => {
        const local = toLocal(utc, offset);
        const hour = parseSpan(formatSpan(local, 'hour'), false)!;
        const day = parseSpan(formatSpan(local, 'day'), false)!;
        expect([hour.end - hour.start, day.end - day.start]).toEqual([HOUR, DAY]);
      }),
    );
  });

  it('are the Gregorian days of the month for a month, 365 or 366 days for a year', () => {
    fc.assert(
      fc.property(yearArb, fc.integer({ min: 1, max: 12 }), (year, month) => {
        const monthSpan = parseSpan(`${year}-${month}`, false)!;
        expect(monthSpan.end - monthSpan.start).toBe(daysIn(year, month) * DAY);
        const yearSpan = parseSpan(String(year), false)!;
        expect(yearSpan.end - yearSpan.start).toBe((isLeap(year) ? 366 : 365) * DAY);
        const quarterSpan = parseSpan(`${year}-Q${Math.ceil(month / 3)}`, true)!;
        const first = Math.ceil(month / 3) * 3 - 2;
        expect(quarterSpan.end - quarterSpan.start).toBe(
          (daysIn(year, first) + daysIn(year, first + 1) + daysIn(year, first + 2)) * DAY,
        );
      }),
    );
  });

  it.each([
    ['2024-02', 29],
    ['2026-02', 28],
    ['2000-02', 29],
    ['2100-02', 28],
    ['2400-02', 29],
    ['2026-04', 30],
    ['2026-12', 31],
  ])('gives %s %i days', (text, days) => {
    const span = parseSpan(text, false)!;
    expect((span.end - span.start) / DAY).toBe(days);
  });

  it('name a day only when the month has it: 29 February in leap years, never 31 April', () => {
    fc.assert(
      fc.property(yearArb, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (year, month, day) => {
        const span = parseSpan(`${year}-${month}-${day}`, false);
        const start = Date.UTC(year, month - 1, day);
        expect(span).toEqual(day <= daysIn(year, month) ? { start, end: start + DAY, unit: 'day' } : undefined);
      }),
    );
  });

  it('read a moment with or without zero padding as the same span, and write it padded', () => {
    fc.assert(
      fc.property(
        yearArb,
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        (year, month, day, hour) => {
          const two = (value: number) => String(value).padStart(2, '0');
          const padded = `${year}-${two(month)}-${two(day)}T${two(hour)}`;
          const span = parseSpan(`${year}-${month}-${day}T${hour}`, false)!;
          expect(parseSpan(padded, false)).toEqual(span);
          expect(formatSpan(span.start, 'hour')).toBe(padded);
          expect(toTimestampText(span.start)).toBe(`${year}-${two(month)}-${two(day)} ${two(hour)}:00:00`);
        },
      ),
    );
  });
});

describe('stepping by units', () => {
  // Starts of periods, the only values add is given for months and years.
  const startArb = fc.tuple(instantArb, unitArb).map(([utc, unit]) => ({ unit, start: floorTo(utc, unit) }));

  it('adds steps like integers: n then m steps are n + m steps, and back again is where it began', () => {
    fc.assert(
      fc.property(
        startArb,
        fc.integer({ min: -60, max: 60 }),
        fc.integer({ min: -60, max: 60 }),
        ({ unit, start }, n, m) => {
          fc.pre(
            add(start, unit, Math.min(n, n + m, 0)) >= FIRST_LOCAL &&
              add(start, unit, Math.max(n, n + m, 0)) <= END_LOCAL,
          );
          expect(add(add(start, unit, n), unit, m)).toBe(add(start, unit, n + m));
          expect(add(add(start, unit, n), unit, -n)).toBe(start);
          expect(floorTo(add(start, unit, n), unit)).toBe(add(start, unit, n));
        },
      ),
    );
  });

  it('makes a year twelve months and a day twenty-four hours', () => {
    fc.assert(
      fc.property(startArb, fc.integer({ min: -20, max: 20 }), ({ start }, n) => {
        const month = floorTo(start, 'month');
        const day = floorTo(start, 'day');
        fc.pre(add(month, 'year', Math.min(n, 0)) >= FIRST_LOCAL && add(month, 'year', Math.max(n, 0)) <= END_LOCAL);
        expect(add(month, 'year', n)).toBe(add(month, 'month', 12 * n));
        expect(add(day, 'day', n)).toBe(add(day, 'hour', 24 * n));
      }),
    );
  });
});

describe('covering a span with buckets, at any UTC offset', () => {
  const NEXT: Partial<Record<Unit, Unit>> = { hour: 'day', day: 'month', month: 'year' };
  /** Checks the tiling of [from, to): contiguous, each range whole buckets, none holding a whole bucket of the next unit up. */
  const expectTiling = (ranges: BucketRange[], from: number | null, to: number) => {
    let cursor = from;
    for (const range of ranges) {
      expect(range.from).toBe(cursor);
      expect(range.to).toBeGreaterThan(range.from ?? -Infinity);
      if (range.from !== null) expect(floorTo(range.from, range.unit)).toBe(range.from);
      expect(floorTo(range.to, range.unit)).toBe(range.to);
      const next = NEXT[range.unit];
      // A whole bucket of the next unit inside the range could have been one bucket instead of many.
      if (next && range.from !== null) {
        const firstWhole =
          floorTo(range.from, next) === range.from ? range.from : add(floorTo(range.from, next), next, 1);
        expect(add(firstWhole, next, 1)).toBeGreaterThan(range.to);
      }
      cursor = range.to;
    }
    expect(cursor).toBe(ranges.length === 0 ? from : to);
  };

  it('tiles any span between two local hours with at most seven ranges of whole buckets', () => {
    fc.assert(
      fc.property(instantArb, instantArb, offsetArb, (a, b, offset) => {
        const [from, to] = [Math.min(a, b), Math.max(a, b)].map((utc) => floorTo(toLocal(utc, offset), 'hour'));
        const ranges = coverSpan(from, to);
        expect(ranges.length).toBeLessThanOrEqual(7);
        if (from === to) expect(ranges).toEqual([]);
        else expectTiling(ranges, from, to);
      }),
    );
  });

  it('tiles the time since the beginning with at most four ranges, the first of whole years', () => {
    fc.assert(
      fc.property(instantArb, offsetArb, (utc, offset) => {
        const to = floorTo(toLocal(utc, offset), 'hour');
        const ranges = coverSpan(null, to);
        expect(ranges.length).toBeLessThanOrEqual(4);
        expect(ranges[0]).toEqual({ unit: 'year', from: null, to: floorTo(to, 'year') });
        expectTiling(ranges, null, to);
      }),
    );
  });
});
