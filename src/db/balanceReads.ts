import type postgres from 'postgres';
import { coverSpan, toTimestampText, type BucketRange, type Unit } from '../core/calendar.js';
import type { Db } from './sql.js';

// Balance reads over the folded balances and buckets plus the queue of deltas the fold has not
// reached yet. Each read is one statement, so it sees one snapshot: a fold that commits between
// two reads moves a delta from the queue into the buckets, never into both or neither. Every
// scan is per account and per bucket range on a primary key, so a read costs the same however
// long the history.
// Wall-clock bounds travel as text (`::text::timestamp`): postgres.js would turn a string bound
// to a timestamp parameter into a Date read in the process's own time zone.

/** Whose lines a figure sums: the account's own, its descendants', or both. */
export type BalanceScope = {
  workspaceId: string;
  ledgerId: string;
  accountId: string;
  path: string;
  scope: 'own' | 'child' | 'total';
  /** Leave out the deltas still queued for the fold (a sandbox holding the fold back; see balances.ts). */
  settledOnly?: boolean;
};

export type CurrencyAmount = { currency: string; amount: string };

function scopedAccounts(db: Db, target: BalanceScope): postgres.PendingQuery<postgres.Row[]> {
  if (target.scope === 'own') return db`select ${target.accountId}::text as id`;
  const below = `${target.path.replace(/[\\%_]/g, (ch) => `\\${ch}`)}/%`;
  return db`
    select a.id from ledger_accounts a
    where a.workspace_id = ${target.workspaceId} and a.ledger_id = ${target.ledgerId}
      and (a.path like ${below} ${target.scope === 'total' ? db`or a.id = ${target.accountId}` : db``})`;
}

/** The latest figure per currency. */
export async function currentBalances(db: Db, target: BalanceScope): Promise<CurrencyAmount[]> {
  return db<CurrencyAmount[]>`
    /* currentBalances */
    with accounts as (${scopedAccounts(db, target)})
    select currency, sum(amount)::text as amount from (
      select b.currency, b.own_balance as amount from accounts a
      cross join lateral (select * from ledger_account_balances b where b.workspace_id = ${target.workspaceId} and b.account_id = a.id offset 0) b
      union all
      select currency, amount from (${queued(db, target, null, null, true)}) q
    ) t group by currency order by currency`;
}

const bound = (local: number | null) => (local === null ? '-infinity' : toTimestampText(local));

/**
 * Deltas still queued for the fold, of the scoped accounts, posted in [from, to) of local time:
 * the queue's rows and the open hour each balance row keeps (add_to_balance_rows); with
 * `notInBalances`, only the queued deltas their posting did not add to the balance row (eventual).
 * Every per-account scan in this file is a LATERAL subquery fenced with `offset 0`: PostgreSQL
 * would otherwise flatten it into a hash join over the whole bucket table (40 ms instead of
 * 0.2 ms at 200,000 lines), as its row estimates for the range join are poor.
 */
function queued(db: Db, target: BalanceScope, from: number | null, to: number | null, notInBalances = false) {
  const within = (column: string) =>
    db`${target.settledOnly ? db`and false` : db``}
       ${from === null ? db`` : db`and ${db(column)} >= ${bound(from)}::text::timestamp`}
       ${to === null ? db`` : db`and ${db(column)} < ${bound(to)}::text::timestamp`}`;
  return db`
    select q.currency, q.amount, q.local_hour from accounts a
    cross join lateral (
      select * from ledger_balance_queue q where q.workspace_id = ${target.workspaceId} and q.account_id = a.id
        ${notInBalances ? db`and not q.balance_applied` : db``} ${within('q.local_hour')}
      offset 0
    ) q
    ${
      notInBalances
        ? db``
        : db`union all
    select b.currency, b.open_amount, b.open_hour from accounts a
    cross join lateral (
      select * from ledger_account_balances b where b.workspace_id = ${target.workspaceId} and b.account_id = a.id
        and b.open_hour is not null ${within('b.open_hour')}
      offset 0
    ) b`
    }`;
}

/** Per currency, the sum over [from, to) of local time, given as the buckets that tile it. */
function spanSum(db: Db, target: BalanceScope, ranges: BucketRange[], from: number | null, to: number) {
  return db`
    select b.currency, b.amount from accounts a
    cross join unnest(${ranges.map((r) => r.unit)}::text[], ${ranges.map((r) => bound(r.from))}::text[]::timestamp[],
                      ${ranges.map((r) => bound(r.to))}::text[]::timestamp[]) as r(grain, low, high)
    cross join lateral (
      select * from ledger_balance_buckets b
      where b.workspace_id = ${target.workspaceId} and b.account_id = a.id and b.grain = r.grain and b.bucket >= r.low and b.bucket < r.high
      offset 0
    ) b
    union all
    select currency, amount from (${queued(db, target, from, to)}) q`;
}

/** Per currency, the sum of the lines posted in [from, to) of local time (`from` null: since the beginning). */
export async function balancesOver(
  db: Db,
  target: BalanceScope,
  ranges: BucketRange[],
  from: number | null,
  to: number,
): Promise<CurrencyAmount[]> {
  return db<CurrencyAmount[]>`
    /* balancesOver */
    with accounts as (${scopedAccounts(db, target)})
    select currency, sum(amount)::text as amount from (${spanSum(db, target, ranges, from, to)}) t
    group by currency order by currency`;
}

/**
 * Per currency, the sum of the lines posted up to and including the instant `until`, which falls
 * in the local hour starting at `hourStart` (local ms) and `hourStartUtc`: whole buckets before
 * that hour, then that hour's lines themselves (a sandbox clock reads "now" to the millisecond).
 */
export async function balancesAtInstant(
  db: Db,
  target: BalanceScope,
  hourStart: number,
  hourStartUtc: Date,
  until: Date,
): Promise<CurrencyAmount[]> {
  return db<CurrencyAmount[]>`
    /* balancesAtInstant */
    with accounts as (${scopedAccounts(db, target)})
    select currency, sum(amount)::text as amount from (
      ${spanSum(db, target, coverSpan(null, hourStart), null, hourStart)}
      union all
      select l.currency, l.amount from accounts a
      cross join lateral (
        select l.currency, l.amount from ledger_lines l
        where l.workspace_id = ${target.workspaceId} and l.account_id = a.id and l.posted >= ${hourStartUtc} and l.posted <= ${until}
        offset 0
      ) l
    ) t group by currency order by currency`;
}

export type BucketAmount = { bucket: string; currency: string; amount: string };

/**
 * Series in one statement: the sum before `from` (opening, tiled by `openingRanges`) and the
 * change in every `unit` bucket of [from, to), keyed by the bucket's start as `YYYY-MM-DD HH:MI:SS`.
 */
export async function bucketSeries(
  db: Db,
  target: BalanceScope,
  unit: Unit,
  from: number,
  to: number,
  openingRanges: BucketRange[] | undefined,
): Promise<{ opening: CurrencyAmount[]; changes: BucketAmount[] }> {
  const rows = await db<(BucketAmount & { opening: boolean })[]>`
    /* bucketSeries */
    with accounts as (${scopedAccounts(db, target)})
    select opening, bucket, currency, sum(amount)::text as amount from (
      select false as opening, to_char(b.bucket, 'YYYY-MM-DD HH24:MI:SS') as bucket, b.currency, b.amount from accounts a
      cross join lateral (
        select * from ledger_balance_buckets b
        where b.workspace_id = ${target.workspaceId} and b.account_id = a.id and b.grain = ${unit}
          and b.bucket >= ${bound(from)}::text::timestamp and b.bucket < ${bound(to)}::text::timestamp
        offset 0
      ) b
      union all
      select false, to_char(date_trunc(${unit}, q.local_hour), 'YYYY-MM-DD HH24:MI:SS'), q.currency, q.amount
      from (${queued(db, target, from, to)}) q
      ${openingRanges ? db`union all select true, null, o.currency, o.amount from (${spanSum(db, target, openingRanges, null, from)}) o` : db``}
    ) t group by opening, bucket, currency`;
  return {
    opening: rows.filter((row) => row.opening).map(({ currency, amount }) => ({ currency, amount })),
    changes: rows.filter((row) => !row.opening).map(({ bucket, currency, amount }) => ({ bucket, currency, amount })),
  };
}
