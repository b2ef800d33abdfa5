import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT96_MAX } from '../../src/core/money.js';
import { scalarFormats, SAFE_STRING_MAX_LENGTH } from '../../src/core/scalarFormats.js';
import { formatUtcOffset } from '../../src/core/time.js';

describe('ledger scalar formats', () => {
  it.each([
    ['SafeString', 'main-ledger', 'main-ledger'],
    ['SafeString', 'a/b', undefined],
    ['SafeString', 'a#b', undefined],
    ['SafeString', 'user:1', undefined],
    ['SafeString', '{{param}}', undefined],
    ['SafeString', '', undefined],
    ['SafeString', 'x'.repeat(129), undefined],
    ['DateTime', '2026-02-03', '2026-02-03T00:00:00.000Z'],
    ['DateTime', '2026-02-03T04:05:06+05:30', '2026-02-02T22:35:06.000Z'],
    ['DateTime', '2026-02-30T00:00:00Z', undefined],
    ['DateTime', 'yesterday', undefined],
    ['Date', '2024-02-29', '2024-02-29'],
    ['Date', '2026-02-29', undefined],
    ['Int96', '-42', '-42'],
    ['Int96', '4.2', undefined],
    ['Int64', '9223372036854775807', '9223372036854775807'],
    ['Int64', '9223372036854775808', undefined],
    ['UTCOffset', '+05:45', '+05:45'],
    ['UTCOffset', '+25:00', undefined],
    ['Period', '2026-Q1', '2026-Q1'],
    ['Period', '2026-02-03T04', '2026-02-03T04'],
    ['Period', '2026-Q5', undefined],
    ['PeriodFilter', '2026-05', '2026-05'],
    ['PeriodFilter', '2026-05-01', undefined],
    ['PeriodFilter', '2026-13', undefined],
    ['LastMoment', '2026-1', '2026-1'],
    ['LastMoment', '2026-02-03T4', '2026-02-03T4'],
    ['LastMoment', '1969-12', undefined],
    ['LastMoment', '10000', undefined],
    ['LastMoment', '2026-13', undefined],
    ['LastMoment', '2026-04-31', undefined],
    ['LastMoment', '2027-02-29', undefined],
    ['LastMoment', '2028-02-29', '2028-02-29'],
    ['LastMoment', '2026-05-01T24', undefined],
    ['LastMoment', '2026-Q1', undefined],
    ['FirstMoment', '9999-12-31T23', '9999-12-31T23'],
    ['FirstMoment', '2026-00', undefined],
    ['FirstMoment', '2026-05-00', undefined],
    ['Period', '1969-Q4', undefined],
    ['Period', '2026-02-30', undefined],
  ] as const)('%s %j -> %j', (scalar, text, expected) => {
    expect(scalarFormats[scalar](text)).toBe(expected);
  });
});

describe('ledger scalar formats at their edges', () => {
  it.each([
    ['SafeString', 'x'.repeat(128), 'x'.repeat(128)],
    ['SafeString', 'a}b{c', 'a}b{c'],
    ['SafeString', 'a}}b', undefined],
    ['ParameterizedString', '{{param}}', '{{param}}'],
    ['ParameterizedString', '', undefined],
    ['AlphaNumericString', 'Abc123', 'Abc123'],
    ['AlphaNumericString', 'abc-123', undefined],
    ['AlphaNumericString', '', undefined],
    ['Int96', '1329227995784915872903807060280344575', '1329227995784915872903807060280344575'],
    ['Int96', '1329227995784915872903807060280344576', undefined],
    ['Int96', '-0', undefined],
    ['Int64', '-9223372036854775808', '-9223372036854775808'],
    ['Int64', '-9223372036854775809', undefined],
    ['DateTime', '2026-02-03T04:05Z', '2026-02-03T04:05:00.000Z'],
    ['DateTime', '2026-02-03T04:05:06.123456789Z', '2026-02-03T04:05:06.123Z'],
    ['DateTime', '2026-02-03T04:05:06', undefined],
    ['DateTime', '2026-02-03 04:05:06Z', undefined],
    // An offset must not carry an instant out of the four-digit years the scalar writes.
    ['DateTime', '9999-12-31T23:59:59.999-12:00', undefined],
    ['DateTime', '9999-12-31T11:59:59.999-12:00', '9999-12-31T23:59:59.999Z'],
    ['DateTime', '0000-01-01T05:00+06:00', undefined],
    // Years 0-99 are years 0-99, not 1900-1999.
    ['DateTime', '0050-01-01T00:00Z', '0050-01-01T00:00:00.000Z'],
    ['Date', '0050-01-01', '0050-01-01'],
    ['Date', '0004-02-29', '0004-02-29'],
    ['Date', '0100-02-29', undefined],
    ['UTCOffset', '-00:00', '-00:00'],
    ['UTCOffset', '-12:00', '-12:00'],
    ['UTCOffset', '+14:00', '+14:00'],
    ['Period', '9999-Q4', '9999-Q4'],
    ['Period', '2026', '2026'],
    ['PeriodFilter', '2026', '2026'],
    ['PeriodFilter', '2026-05-01T04', undefined],
  ] as const)('%s %j -> %j', (scalar, text, expected) => {
    expect(scalarFormats[scalar](text)).toBe(expected);
  });

  it('takes SafeStrings of 1 to 128 UTF-16 units free of / # : {{ }}, and nothing else', () => {
    expect(SAFE_STRING_MAX_LENGTH).toBe(128);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 140 }), (text) => {
        const ok =
          text.length >= 1 && text.length <= 128 && !/[/#:]/.test(text) && !text.includes('{{') && !text.includes('}}');
        expect(scalarFormats.SafeString(text)).toBe(ok ? text : undefined);
      }),
    );
  });

  it('writes any Int96 back in its one canonical form, and Int64 only within ±2^63', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -INT96_MAX, max: INT96_MAX }), (value) => {
        const text = value.toString();
        expect(scalarFormats.Int96(text)).toBe(text);
        const inInt64 = value >= -(1n << 63n) && value < 1n << 63n;
        expect(scalarFormats.Int64(text)).toBe(inInt64 ? text : undefined);
      }),
    );
  });

  it('reads any date-time written at any offset as the same instant, in UTC with milliseconds', () => {
    const instant = fc.date({
      min: new Date(Date.UTC(1970, 0, 2)),
      max: new Date(Date.UTC(9999, 11, 30)),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, fc.integer({ min: -720, max: 840 }), (date, offset) => {
        const wallClock = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 23);
        const canonical = scalarFormats.DateTime(`${wallClock}${formatUtcOffset(offset)}`);
        expect(canonical).toBe(date.toISOString());
        expect(scalarFormats.DateTime(canonical!)).toBe(canonical);
      }),
    );
  });

  it('takes a Date exactly when the calendar has that day', () => {
    const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const length = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
          const text = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          expect(scalarFormats.Date(text)).toBe(day <= length ? text : undefined);
        },
      ),
    );
  });
});
