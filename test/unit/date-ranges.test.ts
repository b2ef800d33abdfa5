import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateFilterRanges, dayRange, periodRange, type InstantRange } from '../../src/core/dateRanges.js';
import { refusalOf } from '../support/domainErrors.js';

// DateFilter conditions as half-open instant ranges [from, to): a Date is a UTC day, `within` a
// UTC year or month, `withinBalanceUTCOffset` the same span with boundaries at the ledger's offset.

const iso = ({ from, to }: InstantRange) => [from.toISOString(), to.toISOString()];
const DAY_MS = 86_400_000;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
// The scalars admit years 1970 to 9999 (PeriodFilter) and real calendar days (Date).
const year = fc.integer({ min: 1970, max: 9999 });
const month = fc.integer({ min: 1, max: 12 });
// Offsets as UTCOffset allows them, -23:59 to +23:59, in minutes east of UTC.
const offset = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
const anyDay = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((instant) => instant.toISOString().slice(0, 10));

describe('dayRange', () => {
  it('is the UTC day of the date, leap days included', () => {
    expect(iso(dayRange('2026-11-21'))).toEqual(['2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z']);
    expect(iso(dayRange('2028-02-29'))).toEqual(['2028-02-29T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
    expect(iso(dayRange('9999-12-31'))).toEqual(['9999-12-31T00:00:00.000Z', '+010000-01-01T00:00:00.000Z']);
  });

  it("lasts exactly one day and starts at the date's midnight UTC", () => {
    // Law: to − from = 24 h and from.toISOString() begins with the date itself (UTC has no DST).
    fc.assert(
      fc.property(anyDay, (date) => {
        const { from, to } = dayRange(date);
        expect(from.toISOString()).toBe(`${date}T00:00:00.000Z`);
        expect(to.getTime() - from.getTime()).toBe(DAY_MS);
      }),
    );
  });
});

describe('periodRange', () => {
  it('spans a UTC year or month', () => {
    expect(iso(periodRange('2026'))).toEqual(['2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    expect(iso(periodRange('2026-05'))).toEqual(['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']);
    expect(iso(periodRange('2026-12'))).toEqual(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    expect(iso(periodRange('2028-2'))).toEqual(['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z']);
  });

  it("moves the boundaries to the ledger's midnight: east of UTC earlier, west later", () => {
    // At +02:00 the local month of May starts at 22:00 UTC on 30 April.
    expect(iso(periodRange('2026-05', 120))).toEqual(['2026-04-30T22:00:00.000Z', '2026-05-31T22:00:00.000Z']);
    expect(iso(periodRange('2026', -330))).toEqual(['2026-01-01T05:30:00.000Z', '2027-01-01T05:30:00.000Z']);
  });

  it('refuses what is neither a year nor a month', () => {
    for (const period of ['2026-00', '2026-13', '2026-05-01', '26', '2026-Q1', '2026-', '']) {
      const error = refusalOf(() => periodRange(period));
      expect([error.code, error.message]).toEqual([
        'invalid_input_provided',
        `${period} is not a year (2026) or a month (2026-05).`,
      ]);
    }
  });

  it('tiles a year with its twelve months, end to end', () => {
    // Law: month(y, 1).from = year(y).from, month(y, m).to = month(y, m + 1).from, month(y, 12).to = year(y).to, at any offset.
    fc.assert(
      fc.property(year, offset, (y, minutes) => {
        const whole = periodRange(String(y), minutes);
        const months = Array.from({ length: 12 }, (_m, index) => periodRange(`${y}-${pad(index + 1)}`, minutes));
        expect(months[0].from).toEqual(whole.from);
        months.slice(1).forEach((range, index) => expect(range.from).toEqual(months[index].to));
        expect(months[11].to).toEqual(whole.to);
      }),
    );
  });

  it('shifts both ends by the offset and nothing else', () => {
    // Law: periodRange(p, o) = periodRange(p, 0) − o minutes, so its length does not depend on the offset.
    fc.assert(
      fc.property(year, fc.option(month, { nil: undefined }), offset, (y, m, minutes) => {
        const period = m === undefined ? String(y) : `${y}-${pad(m)}`;
        const utc = periodRange(period);
        const shifted = periodRange(period, minutes);
        expect(shifted.from.getTime()).toBe(utc.from.getTime() - minutes * 60_000);
        expect(shifted.to.getTime()).toBe(utc.to.getTime() - minutes * 60_000);
      }),
    );
  });

  it("covers exactly the days of the month: each day's range lies inside it, the neighbours' outside", () => {
    // Law: dayRange(d) ⊆ periodRange(month of d) ⊆ periodRange(year of d), and the month has as many days as the calendar says.
    fc.assert(
      fc.property(year, month, (y, m) => {
        const range = periodRange(`${y}-${pad(m)}`);
        const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
        expect(range.to.getTime() - range.from.getTime()).toBe(days * DAY_MS);
        const last = dayRange(`${y}-${pad(m)}-${pad(days)}`);
        expect(last.to).toEqual(range.to);
        expect(periodRange(String(y)).from.getTime()).toBeLessThanOrEqual(range.from.getTime());
        expect(periodRange(String(y)).to.getTime()).toBeGreaterThanOrEqual(range.to.getTime());
      }),
    );
  });
});

describe('dateFilterRanges', () => {
  it('gives one condition per field given, equalTo, in, within, withinBalanceUTCOffset in that order', () => {
    const conditions = dateFilterRanges(
      { equalTo: '2026-05-03', in: ['2026-05-03', '2026-06-01'], within: '2026-05' },
      60,
    );
    expect(conditions.map((ranges) => ranges.map(iso))).toEqual([
      [['2026-05-03T00:00:00.000Z', '2026-05-04T00:00:00.000Z']],
      [
        ['2026-05-03T00:00:00.000Z', '2026-05-04T00:00:00.000Z'],
        ['2026-06-01T00:00:00.000Z', '2026-06-02T00:00:00.000Z'],
      ],
      // `within` is UTC whatever the ledger's offset.
      [['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z']],
    ]);
    expect(dateFilterRanges({ withinBalanceUTCOffset: '2026-05' }, 60).map((ranges) => ranges.map(iso))).toEqual([
      [['2026-04-30T23:00:00.000Z', '2026-05-31T23:00:00.000Z']],
    ]);
  });

  it('has no conditions for an empty filter or null fields, and a condition nothing meets for in: []', () => {
    expect(dateFilterRanges({}, 0)).toEqual([]);
    expect(dateFilterRanges({ equalTo: null, in: null, within: null, withinBalanceUTCOffset: null }, 0)).toEqual([]);
    // "The date must be one of these": of none, so no instant matches.
    expect(dateFilterRanges({ in: [] }, 0)).toEqual([[]]);
  });

  it('refuses within with withinBalanceUTCOffset', () => {
    const error = refusalOf(() => dateFilterRanges({ within: '2026', withinBalanceUTCOffset: '2026' }, 0));
    expect([error.code, error.message]).toEqual([
      'invalid_input_provided',
      'A date filter takes within or withinBalanceUTCOffset, not both.',
    ]);
  });

  it('takes up to 100 dates in `in` and refuses 101', () => {
    const dates = Array.from({ length: 101 }, (_d, index) =>
      new Date(Date.UTC(2026, 0, 1 + index)).toISOString().slice(0, 10),
    );
    expect(dateFilterRanges({ in: dates.slice(0, 100) }, 0)[0]).toHaveLength(100);
    const error = refusalOf(() => dateFilterRanges({ in: dates }, 0));
    expect([error.code, error.message]).toEqual(['invalid_input_provided', 'The date filter takes at most 100 dates.']);
  });

  it('turns each date of `in` into its own day, in order', () => {
    // Law: dateFilterRanges({in: D}, o) = [D.map(dayRange)] for |D| ≤ 100, whatever the offset.
    fc.assert(
      fc.property(fc.array(anyDay, { maxLength: 100 }), offset, (dates, minutes) => {
        expect(dateFilterRanges({ in: dates }, minutes)).toEqual([dates.map(dayRange)]);
      }),
    );
  });
});
