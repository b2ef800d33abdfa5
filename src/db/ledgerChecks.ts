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
    )
    select 'stored balance equals the sum of lines' as check, a.ledger_id as "ledgerId", a.path || ' ' || coalesce(b.currency, s.currency) as subject,
           'stored ' || coalesce(b.own_balance, 0)::text || ' (' || coalesce(b.line_count, 0)::text || ' lines), lines sum to '
             || coalesce(s.total, 0)::text || ' (' || coalesce(s.lines, 0)::text || ' lines)' as detail
    from ledger_account_balances b
    full join sums s on s.workspace_id = b.workspace_id and s.account_id = b.account_id and s.currency = b.currency
    join ledger_accounts a on a.workspace_id = coalesce(b.workspace_id, s.workspace_id) and a.id = coalesce(b.account_id, s.account_id)
    where ${inLedger('a.ledger_id')}
      and (coalesce(b.own_balance, 0) <> coalesce(s.total, 0) or coalesce(b.line_count, 0) <> coalesce(s.lines, 0))`;
  const emptyOrSplit = await db<Violation[]>`
    /* checkIksAndLines */
    select 'every entry has lines, every ik one entry per position' as check, e.ledger_id as "ledgerId", e.ik as subject,
           count(distinct e.id)::text || ' entries at position ' || e.reversal_position::text || ', '
             || count(l.id)::text || ' lines' as detail
    from ledger_entries e left join ledger_lines l on l.workspace_id = e.workspace_id and l.entry_id = e.id
    where ${inLedger('e.ledger_id')}
    group by e.ledger_id, e.ik, e.reversal_position
    having count(distinct e.id) <> 1 or count(l.id) = 0`;
  return [...unbalanced, ...drifted, ...emptyOrSplit];
}
