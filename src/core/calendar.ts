import { parseUtcOffset } from './time.js';

// Calendar spans in a ledger's local time. Balance reads name moments and periods as wall-clock
// text (`2026-05`, `2026-05-03T04`) at the ledger's balanceUTCOffset. A local wall-clock time is
// kept as the milliseconds that clock reading would have in UTC ("local ms"): calendar arithmetic
// is then plain Date.UTC arithmetic, and no step ever consults the machine's time zone.

export type Unit = 'hour' | 'day' | 'month' | 'year';
export type PeriodUnit = Unit | 'quarter';

/** A span [start, end) in local ms, and the unit it was written in. */
export type Span<U extends string = Unit> = { start: number; end: number; unit: U };

export const UNIT_RANK: Record<Unit, number> = { hour: 0, day: 1, month: 2, year: 3 };
const UNITS: Unit[] = ['hour', 'day', 'month', 'year'];

/** Balance history covers years 1970 to 9999 of local time. */
export const FIRST_LOCAL = Date.UTC(1970, 0, 1);
export const END_LOCAL = Date.UTC(10000, 0, 1);
const HOUR_MS = 3_600_000;
/** Year 1 (Date.UTC would read 1 as 1901): before it, timestamp literals need an era. */
const FIRST_YEAR_LOCAL = new Date(0).setUTCFullYear(1, 0, 1);

const MOMENT = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:T(\d{1,2}))?)?)?$/;
const QUARTER = /^(\d{4})-Q([1-4])$/;

/** The span a `FirstMoment`/`LastMoment`/`Period` text names; undefined when it names none. */
export function parseSpan(text: string, allowQuarter: boolean): Span<PeriodUnit> | undefined {
  const quarter = allowQuarter ? QUARTER.exec(text) : null;
  if (quarter) {
    const year = Number(quarter[1]);
    if (year < 1970) return undefined;
    const start = Date.UTC(year, (Number(quarter[2]) - 1) * 3, 1);
    return { start, end: add(start, 'month', 3), unit: 'quarter' };
  }
  const match = MOMENT.exec(text);
  if (!match) return undefined;
  const [year, month = 1, day = 1, hour = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23) return undefined;
  const start = Date.UTC(year, month - 1, day, hour);
  if (new Date(start).getUTCDate() !== day) return undefined; // 31 April, 29 February of 2027...
  const unit: Unit =
    match[4] !== undefined ? 'hour' : match[3] !== undefined ? 'day' : match[2] !== undefined ? 'month' : 'year';
  return { start, end: add(start, unit, 1), unit };
}

/** `local` moved by `count` units (negative moves back); months keep the first-of-month alignment. */
export function add(local: number, unit: Unit, count: number): number {
  if (unit === 'hour') return local + count * 3_600_000;
  if (unit === 'day') return local + count * 86_400_000;
  const date = new Date(local);
  const months = unit === 'month' ? count : count * 12;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, date.getUTCDate(), date.getUTCHours());
}

/** The start of the unit that contains `local`. */
export function floorTo(local: number, unit: Unit): number {
  const d = new Date(local);
  switch (unit) {
    case 'hour':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours());
    case 'day':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'year':
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

function ceilTo(local: number, unit: Unit): number {
  const floor = floorTo(local, unit);
  return floor === local ? local : add(floor, unit, 1);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The text naming the unit that starts at `local`: `2026`, `2026-05`, `2026-05-03` or `2026-05-03T04`. */
export function formatSpan(local: number, unit: PeriodUnit): string {
  const d = new Date(local);
  const year = pad(d.getUTCFullYear(), 4);
  switch (unit) {
    case 'year':
      return year;
    case 'quarter':
      return `${year}-Q${Math.floor(d.getUTCMonth() / 3) + 1}`;
    case 'month':
      return `${year}-${pad(d.getUTCMonth() + 1)}`;
    case 'day':
      return `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    case 'hour':
      return `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}`;
  }
}

/** `local` as a PostgreSQL timestamp literal (the buckets' wall-clock column); year 10000 included, as the end of 9999. */
export function toTimestampText(local: number): string {
  const d = new Date(local);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:00:00`;
}

export type BucketRange = { unit: Unit; from: number | null; to: number };

/**
 * The fewest whole buckets that exactly tile [from, to) (both on hour boundaries; `from` null for
 * "since the beginning"): hours up to the first day boundary, then days, months and years, and
 * back down on the other side. At most seven ranges, whatever the span's length.
 */
export function coverSpan(from: number | null, to: number): BucketRange[] {
  const ranges: BucketRange[] = [];
  let low: number | null = from;
  let level = 0;
  if (low === null) {
    level = UNIT_RANK.year;
  } else {
    while (level < UNIT_RANK.year) {
      const up = ceilTo(low, UNITS[level + 1]);
      if (up > to) break;
      if (up > low) ranges.push({ unit: UNITS[level], from: low, to: up });
      low = up;
      level += 1;
    }
  }
  for (; level >= 0; level -= 1) {
    const down = floorTo(to, UNITS[level]);
    if (low === null || down > low) {
      ranges.push({ unit: UNITS[level], from: low, to: down });
      low = down;
    }
  }
  return ranges;
}

/**
 * The local hour an instant (ISO 8601) falls in at a ledger's UTC offset, as a timestamp literal:
 * what the SQL function ledger_local_hour answers. Undefined outside years 1 to 9999, or for text
 * that is not an instant with an offset, which the database then computes itself.
 */
export function ledgerLocalHour(posted: string, utcOffset: string): string | undefined {
  const offsetMinutes = parseUtcOffset(utcOffset);
  const instant = Date.parse(posted);
  if (offsetMinutes === undefined || Number.isNaN(instant)) return undefined;
  // Hours are whole multiples of 3,600,000 ms from the epoch (floorTo's Date.UTC reads years below 100 as 19xx).
  const local = Math.floor((instant + offsetMinutes * 60_000) / HOUR_MS) * HOUR_MS;
  return local >= FIRST_YEAR_LOCAL && local < END_LOCAL ? toTimestampText(local) : undefined;
}
