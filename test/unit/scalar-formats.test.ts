import { describe, expect, it } from 'vitest';
import { scalarFormats } from '../../src/core/scalarFormats.js';

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
