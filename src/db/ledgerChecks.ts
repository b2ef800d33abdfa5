import type { Db } from './sql.js';

// Invariants of the ledger that hold whatever path wrote the data: users run them on their own
// databases (`make admin ARGS="check"`), and the test suites run them after posting.

export type Violation = { check: string; ledgerId: string; subject: string; detail: string };

/** Every violation in one ledger, or in all ledgers of the database when none is named. */
export async function checkLedgerInvariants(db: Db, ledgerId?: string): Promise<Violation[]> {
  const inLedger = (column: string) => (ledgerId === undefined ? db`true` : db`${db(column)} = ${ledgerId}`);
  const unbalanced = await db<Violation[]>`
    /* checkEntriesBalance */
    select 'entry balances per currency' as check, l.ledger_id as "ledgerId", l.entry_id as subject,
           l.currency || ': assets + expenses - liabilities - income = ' || sum(
             case a.type when 'asset' then l.amount when 'expense' then l.amount else -l.amount end)::text as detail
    from ledger_lines l join ledger_accounts a on a.workspace_id = l.workspace_id and a.id = l.account_id
    where ${inLedger('l.ledger_id')}
    group by l.ledger_id, l.entry_id, l.currency
    having sum(case a.type when 'asset' then l.amount when 'expense' then l.amount else -l.amount end) <> 0`;
  const drifted = await db<Violation[]>`
    /* checkBalancesEqualLines */
    with sums as (
      select workspace_id, account_id, currency, sum(amount) as total, count(*) as lines
      from ledger_lines group by workspace_id, account_id, currency
    ), stored as (
      select workspace_id, account_id, currency, sum(amount) as total, sum(lines) as lines from (
        select workspace_id, account_id, currency, own_balance as amount, line_count as lines from ledger_account_balances
        union all
        select workspace_id, account_id, currency, amount, line_count from ledger_balance_queue where not balance_applied
      ) t group by workspace_id, account_id, currency
    )
    select 'stored balance equals the sum of lines' as check, a.ledger_id as "ledgerId", a.path || ' ' || coalesce(b.currency, s.currency) as subject,
           'stored and queued ' || coalesce(b.total, 0)::text || ' (' || coalesce(b.lines, 0)::text || ' lines), lines sum to '
             || coalesce(s.total, 0)::text || ' (' || coalesce(s.lines, 0)::text || ' lines)' as detail
    from stored b
    full join sums s on s.workspace_id = b.workspace_id and s.account_id = b.account_id and s.currency = b.currency
    join ledger_accounts a on a.workspace_id = coalesce(b.workspace_id, s.workspace_id) and a.id = coalesce(b.account_id, s.account_id)
    where ${inLedger('a.ledger_id')}
      and (coalesce(b.total, 0) <> coalesce(s.total, 0) or coalesce(b.lines, 0) <> coalesce(s.lines, 0))`;
  const history = await db<Violation[]>`
    /* checkBucketsEqualLines */
    with lines as (
      select l.workspace_id, l.account_id, l.currency, ledger_local_hour(l.posted, g.balance_utc_offset) as hour, l.amount
      from ledger_lines l join ledgers g on g.workspace_id = l.workspace_id and g.id = l.ledger_id
    ), expected as (
      select workspace_id, account_id, currency, u.grain, date_trunc(u.grain, hour) as bucket, sum(amount) as total
      from lines cross join (values ('hour'), ('day'), ('month'), ('year')) as u(grain)
      group by workspace_id, account_id, currency, u.grain, date_trunc(u.grain, hour)
    ), stored as (
      select workspace_id, account_id, currency, grain, bucket, sum(amount) as total from (
        select workspace_id, account_id, currency, grain, bucket, amount from ledger_balance_buckets
        union all
        select q.workspace_id, q.account_id, q.currency, u.grain, date_trunc(u.grain, q.local_hour), q.amount
        from ledger_balance_queue q cross join (values ('hour'), ('day'), ('month'), ('year')) as u(grain)
        union all
        select b.workspace_id, b.account_id, b.currency, u.grain, date_trunc(u.grain, b.open_hour), b.open_amount
        from ledger_account_balances b cross join (values ('hour'), ('day'), ('month'), ('year')) as u(grain)
        where b.open_hour is not null
      ) t group by workspace_id, account_id, currency, grain, bucket
    )
    select 'balance history equals the lines' as check, a.ledger_id as "ledgerId",
           a.path || ' ' || coalesce(b.currency, e.currency) || ' ' || coalesce(b.grain, e.grain) || ' ' || coalesce(b.bucket, e.bucket)::text as subject,
           'buckets, queue and open hours hold ' || coalesce(b.total, 0)::text || ', lines sum to ' || coalesce(e.total, 0)::text as detail
    from stored b
    full join expected e on e.workspace_id = b.workspace_id and e.account_id = b.account_id and e.currency = b.currency
      and e.grain = b.grain and e.bucket = b.bucket
    join ledger_accounts a on a.workspace_id = coalesce(b.workspace_id, e.workspace_id) and a.id = coalesce(b.account_id, e.account_id)
    where ${inLedger('a.ledger_id')} and coalesce(b.total, 0) <> coalesce(e.total, 0)`;
  const emptyOrSplit = await db<Violation[]>`
    /* checkIksAndLines */
    select 'every entry has lines, every ik one entry per position' as check, e.ledger_id as "ledgerId", e.ik as subject,
           count(distinct e.id)::text || ' entries at position ' || e.reversal_position::text || ', '
             || count(l.id)::text || ' lines' as detail
    from ledger_entries e left join ledger_lines l on l.workspace_id = e.workspace_id and l.entry_id = e.id
    where ${inLedger('e.ledger_id')}
    group by e.ledger_id, e.ik, e.reversal_position
    having count(distinct e.id) <> 1 or count(l.id) = 0`;
  return [...unbalanced, ...drifted, ...history, ...emptyOrSplit];
}
