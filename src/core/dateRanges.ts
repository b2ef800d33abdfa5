import { DomainError } from './errors.js';

// Date filters as instant ranges [from, to). A Date is a UTC calendar day; `within` a year or
// month in UTC; `withinBalanceUTCOffset` the same span with boundaries at the ledger's offset.

export type InstantRange = { from: Date; to: Date };

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const PERIOD = /^(\d{4})(?:-(\d{1,2}))?$/;

export function dayRange(date: string): InstantRange {
  const [, year, month, day] = DAY.exec(date)!;
  const from = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return { from, to: new Date(from.getTime() + 86_400_000) };
}

/** A year (`2026`) or month (`2026-05`) shifted by `offsetMinutes` east of UTC. */
export function periodRange(period: string, offsetMinutes = 0): InstantRange {
  const match = PERIOD.exec(period);
  const month = match?.[2] === undefined ? undefined : Number(match[2]);
  if (!match || (month !== undefined && (month < 1 || month > 12))) {
    throw new DomainError('invalid_input_provided', `${period} is not a year (2026) or a month (2026-05).`);
  }
  const year = Number(match[1]);
  const shift = offsetMinutes * 60_000;
  const from = month === undefined ? Date.UTC(year, 0, 1) : Date.UTC(year, month - 1, 1);
  const to = month === undefined ? Date.UTC(year + 1, 0, 1) : Date.UTC(year, month, 1);
  return { from: new Date(from - shift), to: new Date(to - shift) };
}

type DateFilterInput = {
  equalTo?: string | null;
  in?: readonly string[] | null;
  within?: string | null;
  withinBalanceUTCOffset?: string | null;
};

/** Ranges any of which an instant must fall in; every given condition must hold (AND). */
export function dateFilterRanges(filter: DateFilterInput, ledgerOffsetMinutes: number): InstantRange[][] {
  if (filter.within != null && filter.withinBalanceUTCOffset != null) {
    throw new DomainError('invalid_input_provided', 'A date filter takes within or withinBalanceUTCOffset, not both.');
  }
  if ((filter.in?.length ?? 0) > 100)
    throw new DomainError('invalid_input_provided', 'The date filter takes at most 100 dates.');
  const conditions: InstantRange[][] = [];
  if (filter.equalTo != null) conditions.push([dayRange(filter.equalTo)]);
  if (filter.in != null) conditions.push(filter.in.map(dayRange));
  if (filter.within != null) conditions.push([periodRange(filter.within)]);
  if (filter.withinBalanceUTCOffset != null)
    conditions.push([periodRange(filter.withinBalanceUTCOffset, ledgerOffsetMinutes)]);
  return conditions;
}
