import type { Granularity } from '../../../generated/ledger.js';
import {
  add,
  coverSpan,
  END_LOCAL,
  FIRST_LOCAL,
  formatSpan,
  parseSpan,
  toTimestampText,
  UNIT_RANK,
  type Unit,
} from '../../core/calendar.js';
import { DomainError } from '../../core/errors.js';
import type { PageArgs, PageLimits } from '../../core/pagination.js';
import { bucketSeries } from '../../db/balanceReads.js';
import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import type { GqlContext } from '../context.js';
import { balanceScope, currencyOf, toAmounts, withinInt96, type Scope } from './balances.js';

// Balance series: `*BalancesDuring` (the figure at the end of each bucket) and
// `*BalanceChangesDuring` (the change within each bucket). A page costs two index range scans
// whatever the history: the buckets of the page and the few dozen that tile the time before it.

export type SeriesArgs = PageArgs & {
  currency?: { code: string; customCurrencyId?: string | null } | null;
  duration: number;
  granularity: Granularity;
  startTime: string;
};

const GRANULARITY_UNIT: Record<Granularity, Unit> = { hourly: 'hour', daily: 'day', monthly: 'month' };

/** A series of up to 1,000 buckets comes in one page; longer ones page with first/after or last/before. */
export const SERIES_PAGE_LIMITS: PageLimits = { defaultSize: 1000, maxSize: 1000 };

type Series = { unit: Unit; first: number; count: number };

/** The buckets a request names, checked against the granularity rules and the calendar's range. */
function seriesOf(args: SeriesArgs): Series {
  const start = parseSpan(args.startTime, false)!;
  const unit = GRANULARITY_UNIT[args.granularity];
  if (UNIT_RANK[unit] >= UNIT_RANK[start.unit as Unit]) {
    throw new DomainError(
      'invalid_input_provided',
      `${args.granularity} buckets need a startTime written as a longer span than a ${unit} (a ${start.unit} was given): a year allows monthly, daily or hourly; a month daily or hourly; a day hourly.`,
    );
  }
  if (!Number.isInteger(args.duration) || args.duration === 0) {
    throw new DomainError(
      'invalid_input_provided',
      'duration counts buckets: a non-zero whole number (negative walks back from startTime).',
    );
  }
  const count = Math.abs(args.duration);
  const first = args.duration > 0 ? start.start : add(start.start, unit, args.duration);
  // Written so that NaN fails too: Date.UTC gives NaN millions of years out (duration −70,000,000 months).
  if (!(first >= FIRST_LOCAL && add(first, unit, count) <= END_LOCAL)) {
    throw new DomainError('invalid_input_provided', 'The series must stay within the years 1970 to 9999.');
  }
  return { unit, first, count };
}

/** The bucket indexes of the requested page, in display order's direction, one extra to tell whether more exist. */
function pageIndexes(cursor: string[] | undefined, backward: boolean, size: number, count: number): number[] {
  const at = cursor === undefined ? undefined : Number(cursor[0]);
  if (at !== undefined && !(Number.isInteger(at) && at >= 0 && at < count)) {
    throw new DomainError('invalid_input_provided', 'The cursor does not name a bucket of this series.');
  }
  const indexes: number[] = [];
  if (backward) {
    for (let index = (at ?? count) - 1; index >= 0 && indexes.length <= size; index -= 1) indexes.push(index);
  } else {
    for (let index = at === undefined ? 0 : at + 1; index < count && indexes.length <= size; index += 1)
      indexes.push(index);
  }
  return indexes;
}

type SeriesAmount = { currency: string; amount: string };

/** `*BalancesDuring`: each node is the figure at the end of its bucket (`at`). */
export const balancesDuring = (ctx: GqlContext, account: LedgerAccountRow, scope: Scope, args: SeriesArgs) =>
  balanceSeries(ctx, account, scope, 'balances', args, (at, amount) => ({ at, amount }));

/** `*BalanceChangesDuring`: each node is the change within its bucket (`period`). */
export const balanceChangesDuring = (ctx: GqlContext, account: LedgerAccountRow, scope: Scope, args: SeriesArgs) =>
  balanceSeries(ctx, account, scope, 'changes', args, (period, amount) => ({ period, amount }));

async function balanceSeries<Node>(
  ctx: GqlContext,
  account: LedgerAccountRow,
  scope: Scope,
  kind: 'balances' | 'changes',
  args: SeriesArgs,
  node: (label: string, amount: SeriesAmount) => Node,
) {
  const currency = currencyOf(account, args);
  const { unit, first, count } = seriesOf(args);
  const pages = ctx.pages(
    `series:${kind}:${scope}:${account.id}:${currency}:${args.granularity}:${args.startTime}:${args.duration}`,
  );
  const request = pages.request(args, SERIES_PAGE_LIMITS);
  const indexes = pageIndexes(request.cursor, request.backward, request.size, count);
  const shown = indexes.slice(0, request.size);
  const connection = {
    startTime: formatSpan(first, unit),
    endTime: formatSpan(add(first, unit, count - 1), unit),
    granularity: args.granularity,
  };
  if (shown.length === 0) return { ...connection, ...pages.page(request, [], () => []) };

  const low = Math.min(...shown);
  const high = Math.max(...shown);
  const from = add(first, unit, low);
  const { opening, changes } = await bucketSeries(
    ctx.sql,
    balanceScope(ctx, account, scope),
    unit,
    from,
    add(first, unit, high + 1),
    kind === 'balances' ? coverSpan(null, from) : undefined,
  );
  const changeAt = new Map(
    changes.filter((row) => row.currency === currency).map((row) => [row.bucket, BigInt(row.amount)]),
  );

  // Balances accumulate in time order; the page is then laid out in the request's direction.
  const figures = new Map<number, bigint>();
  let running = toAmounts(account, scope, opening).get(currency) ?? 0n;
  for (let index = low; index <= high; index += 1) {
    const change = changeAt.get(toTimestampText(add(first, unit, index))) ?? 0n;
    running += change;
    figures.set(index, withinInt96(account, scope, currency, kind === 'balances' ? running : change));
  }
  const nodeAt = (index: number) => {
    const label = formatSpan(add(first, unit, index), unit);
    return node(label, { currency, amount: figures.get(index)!.toString() });
  };
  // The rows carry only their index: the extra one that tells whether more exist is never shown.
  const rows = indexes.map((index) => ({ index }));
  const page = pages.page(request, rows, (row) => [String(row.index)]);
  return { ...connection, nodes: page.nodes.map((row) => nodeAt(row.index)), pageInfo: page.pageInfo };
}
