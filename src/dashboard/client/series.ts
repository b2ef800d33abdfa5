// The spans the account page charts, as the ledger's wall clock names them: the last 90 days,
// day by day, and the last 24 months, month by month, both ending with the current one.
// The API takes daily series from a month's start and monthly ones from a year's, so each span
// is asked as two series around that anchor: `before` buckets back from it, `after` from it on.

import { add, floorTo, formatSpan, type Unit } from '../../core/calendar.js';
import { parseUtcOffset } from '../../core/time.js';

export const SPANS = {
  daily: { unit: 'day', anchor: 'month', buckets: 90, label: 'Daily, last 90 days' },
  monthly: { unit: 'month', anchor: 'year', buckets: 24, label: 'Monthly, last 2 years' },
} as const satisfies Record<string, { unit: Unit; anchor: Unit; buckets: number; label: string }>;

export type Granularity = keyof typeof SPANS;

export type SeriesSpan = { granularity: Granularity; anchor: string; before: number; after: number; label: string };

/** Buckets from `start` up to and including the one that begins at `last`. */
function bucketsThrough(start: number, last: number, unit: Unit): number {
  let count = 1;
  for (let at = start; at < last; at = add(at, unit, 1)) count++;
  return count;
}

export function seriesSpan(granularity: Granularity, utcOffset: string, now = Date.now()): SeriesSpan {
  const { unit, anchor, buckets, label } = SPANS[granularity];
  const local = now + (parseUtcOffset(utcOffset) ?? 0) * 60_000;
  const anchorStart = floorTo(local, anchor);
  const after = bucketsThrough(anchorStart, floorTo(local, unit), unit);
  return { granularity, anchor: formatSpan(anchorStart, anchor), before: buckets - after, after, label };
}
