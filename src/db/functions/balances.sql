-- Balances: locking and tidying balance rows, applying a posting's deltas, folding the queue into the buckets, total balances,
-- and rebuilding balances and history from the lines. The tables and how they fit are
-- described in the baseline migration (ledger_account_balances, ledger_balance_buckets,
-- ledger_balance_queue).

-- The local wall-clock hour an instant falls in, at a ledger's offset ('+05:30', '-09:30').
-- Stable, as its text-to-interval cast is: PostgreSQL then inlines it where it is called (declared
-- immutable, it ran as a function call per line, 4 µs an entry in the group statement).
create or replace function ledger_local_hour(p_posted timestamptz, p_offset text) returns timestamp
language sql stable as $$
  select date_trunc('hour', (p_posted at time zone 'UTC') + p_offset::interval)
$$;

-- The Int96 bound: a balance stays within ±(2^120 − 1).
create or replace function int96_max() returns numeric language sql immutable as $$ select 1329227995784915872903807060280344575::numeric $$;

-- The total balance of an account in one currency: its own balance and all its descendants',
-- queued deltas included, so a total-balance bound sees every committed posting.
create or replace function total_balance(p_workspace_id text, p_account_id text, p_currency text) returns numeric
language sql stable as $$
  with subtree as (
    select a.id from ledger_accounts root
    join ledger_accounts a on a.workspace_id = root.workspace_id and a.ledger_id = root.ledger_id
      and (a.id = root.id or a.path like like_prefix(root.path) || '/%')
    where root.workspace_id = p_workspace_id and root.id = p_account_id
  )
  select coalesce((select sum(b.own_balance) from ledger_account_balances b
                   where b.workspace_id = p_workspace_id and b.currency = p_currency and b.account_id in (select id from subtree)), 0)
       + coalesce((select sum(q.amount) from ledger_balance_queue q
                   where q.workspace_id = p_workspace_id and q.currency = p_currency and q.account_id in (select id from subtree)
                     and not q.balance_applied), 0)
$$;

-- Creates or locks balance rows in one pass, in the one global order (account, currency) every
-- posting uses: creating some rows first and locking the others after could deadlock two
-- postings. DO UPDATE ... WHERE false locks an existing row without writing a new version of it.
create or replace function lock_balance_rows(p_workspace_ids text[], p_account_ids text[], p_currencies text[]) returns void
language sql as $$
  insert into ledger_account_balances as b (workspace_id, account_id, currency)
  select distinct t.workspace_id, t.account_id, t.currency
  from unnest(p_workspace_ids, p_account_ids, p_currencies) as t(workspace_id, account_id, currency)
  order by t.account_id, t.currency
  on conflict (workspace_id, account_id, currency) do update set line_count = b.line_count where false
$$;

-- Removes those of the given balance rows that this transaction created and left empty (created
-- only to be locked for a posting that was then refused or replayed): an empty row would list a
-- zero balance. Rows it only locked keep their xmin, so they stay.
create or replace function remove_unused_balance_rows(p_workspace_ids text[], p_account_ids text[], p_currencies text[])
returns void
language sql as $$
  delete from ledger_account_balances b
  using unnest(p_workspace_ids, p_account_ids, p_currencies) as t(workspace_id, account_id, currency)
  where b.workspace_id = t.workspace_id and b.account_id = t.account_id and b.currency = t.currency
    and b.own_balance = 0 and b.line_count = 0 and b.xmin = xid(pg_current_xact_id())
$$;

-- Adds deltas a posting applies (strong, or bounded) to their balance rows, given per line or
-- already summed (those of one account, currency and local hour are added up first); creates
-- missing rows; updates each row once, in (account, currency) order. Each row keeps its open hour: the deltas of the latest hour given for it are added to
-- the open hour when it is that hour, or else replace it, and the hour they replace goes to the
-- queue; deltas of the row's other hours in this call go to the queue too. Answers each row's
-- balance after.
create or replace function add_to_balance_rows(p_workspace_ids text[], p_account_ids text[], p_currencies text[],
                                               p_hours timestamp[], p_amounts numeric[], p_lines bigint[])
returns table (account_id text, currency text, own_balance numeric)
language sql
set plan_cache_mode = force_generic_plan
as $$
  with delta as (
    select t.workspace_id, t.account_id, t.currency, t.hour, sum(t.amount) as amount, sum(t.lines) as lines,
           t.hour = max(t.hour) over (partition by t.workspace_id, t.account_id, t.currency) as latest
    from unnest(p_workspace_ids, p_account_ids, p_currencies, p_hours, p_amounts, p_lines)
      as t(workspace_id, account_id, currency, hour, amount, lines)
    group by t.workspace_id, t.account_id, t.currency, t.hour
  ), per_row as (
    select d.workspace_id, d.account_id, d.currency, sum(d.amount) as amount, sum(d.lines) as lines, max(d.hour) as hour,
           sum(d.amount) filter (where d.latest) as hour_amount, sum(d.lines) filter (where d.latest) as hour_lines
    from delta d
    group by d.workspace_id, d.account_id, d.currency
  ), updated as (
    insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count,
                                              open_hour, open_amount, open_lines)
    select r.workspace_id, r.account_id, r.currency, r.amount, r.lines, r.hour, r.hour_amount, r.hour_lines
    from per_row r
    order by r.account_id, r.currency
    on conflict (workspace_id, account_id, currency) do update set
      own_balance = b.own_balance + excluded.own_balance,
      line_count = b.line_count + excluded.line_count,
      open_hour = excluded.open_hour,
      open_amount = case when b.open_hour = excluded.open_hour then b.open_amount + excluded.open_amount
                         else excluded.open_amount end,
      open_lines = case when b.open_hour = excluded.open_hour then b.open_lines + excluded.open_lines
                        else excluded.open_lines end
    returning b.workspace_id, b.account_id, b.currency, new.own_balance, new.open_hour,
              old.open_hour as closed_hour, old.open_amount as closed_amount, old.open_lines as closed_lines
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select u.workspace_id, u.account_id, u.currency, u.closed_hour, u.closed_amount, u.closed_lines, true
    from updated u
    where u.closed_hour <> u.open_hour and u.closed_lines > 0
    union all
    select d.workspace_id, d.account_id, d.currency, d.hour, d.amount, d.lines, true
    from delta d
    where not d.latest
  )
  select u.account_id, u.currency, u.own_balance from updated u
$$;

-- Closes every open hour of a workspace into the queue, for the fold to file (a sandbox settle:
-- reads of settled balances then see every posting). Rows are locked in (account, currency)
-- order, as postings lock them. Answers how many it closed.
create or replace function close_open_hours(p_workspace_id text) returns integer
language sql as $$
  with open as (
    select b.account_id, b.currency from ledger_account_balances b
    where b.workspace_id = p_workspace_id and b.open_hour is not null
    order by b.account_id, b.currency
    for update
  ), closed as (
    update ledger_account_balances b set open_hour = null, open_amount = 0, open_lines = 0
    from open o
    where b.workspace_id = p_workspace_id and b.account_id = o.account_id and b.currency = o.currency
      and b.open_hour is not null
    returning b.workspace_id, b.account_id, b.currency, old.open_hour, old.open_amount, old.open_lines
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select c.workspace_id, c.account_id, c.currency, c.open_hour, c.open_amount, c.open_lines, true from closed c
    returning 1
  )
  select count(*)::integer from queued
$$;

-- Applies one entry's lines (all posted at p_posted): accounts with strong own balance updates,
-- or whose own balance the entry bounds (p_bounded_account_ids: a bound needs the row locked),
-- update their balance row here (add_to_balance_rows: rows locked in (account, currency) order,
-- the deltas kept in its open hour); the others' deltas are queued for the fold. Answers, per updated row, its balance after the
-- entry and the entry's delta, for the conditions. Raises balance_out_of_range (SQLSTATE TL002)
-- when a balance would leave the Int96 range.
-- Seq scans are off: its statements are key probes, and a generic plan cached while the balance
-- queue was nearly empty went on scanning the whole queue once it had grown (0.3 -> 4.2 ms a call).
create or replace function apply_balance_deltas(p_workspace_id text, p_ledger_id text, p_posted timestamptz,
                                     p_account_ids text[], p_currencies text[], p_amounts numeric[],
                                     p_bounded_account_ids text[]) returns jsonb
language plpgsql
set plan_cache_mode = force_generic_plan
set enable_seqscan = off
as $$
declare
  v_accounts text[];
  v_currencies text[];
  v_deltas numeric[];
  v_applied boolean[];
  v_balances jsonb;
  v_out_of_range boolean;
begin
  -- One statement: the accounts' configuration is read once, and the queue rows and the balance
  -- rows are written from that same reading.
  with deltas as (
    select t.account_id, t.currency, sum(t.amount) as delta, count(*)::integer as lines
    from unnest(p_account_ids, p_currencies, p_amounts) as t(account_id, currency, amount)
    group by t.account_id, t.currency
  ), decided as (
    select d.*, ledger_local_hour(p_posted, l.balance_utc_offset) as local_hour,
           coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual'
             or d.account_id = any(coalesce(p_bounded_account_ids, '{}')) as applied
    from deltas d
    join ledgers l on l.workspace_id = p_workspace_id and l.id = p_ledger_id
    left join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = d.account_id
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select p_workspace_id, d.account_id, d.currency, d.local_hour, d.delta, d.lines, false
    from decided d where not d.applied
  ), updated as (
    select u.*
    from (select array_agg(p_workspace_id) as workspace_ids, array_agg(d.account_id) as account_ids,
                 array_agg(d.currency) as currencies, array_agg(d.local_hour) as hours, array_agg(d.delta) as amounts,
                 array_agg(d.lines::bigint) as lines
          from decided d where d.applied) h
    cross join lateral add_to_balance_rows(h.workspace_ids, h.account_ids, h.currencies, h.hours, h.amounts, h.lines) u
  )
  select (select jsonb_object_agg(u.account_id || '|' || u.currency, jsonb_build_array(u.own_balance::text, d.delta::text))
          from updated u join decided d on d.account_id = u.account_id and d.currency = u.currency),
         coalesce((select bool_or(abs(u.own_balance) > int96_max()) from updated u), false),
         array_agg(d.account_id), array_agg(d.currency), array_agg(d.delta), array_agg(d.applied)
  into v_balances, v_out_of_range, v_accounts, v_currencies, v_deltas, v_applied
  from decided d;

  -- Bounded rows and queued-only rows add the deltas not yet in their balance row, read in a new
  -- statement (so after the locks above): postings to eventual accounts take no lock, so for
  -- them this is a best-effort check of the Int96 range.
  if p_bounded_account_ids is not null or not (true = all(v_applied)) then
    select coalesce(v_balances, '{}') || coalesce(jsonb_object_agg(t.account_id || '|' || t.currency,
             jsonb_build_array(s.balance::text, t.delta::text)) filter (where t.account_id = any(coalesce(p_bounded_account_ids, '{}'))), '{}'),
           v_out_of_range or coalesce(bool_or(abs(s.balance) > int96_max()), false)
    into v_balances, v_out_of_range
    from unnest(v_accounts, v_currencies, v_deltas, v_applied) as t(account_id, currency, delta, applied)
    cross join lateral (
      select coalesce((select b.own_balance from ledger_account_balances b
                       where b.workspace_id = p_workspace_id and b.account_id = t.account_id and b.currency = t.currency), 0)
           + coalesce((select sum(q.amount) from ledger_balance_queue q
                       where q.workspace_id = p_workspace_id and q.account_id = t.account_id and q.currency = t.currency
                         and not q.balance_applied), 0) as balance
    ) s
    where not t.applied or t.account_id = any(coalesce(p_bounded_account_ids, '{}'));
  end if;
  if v_out_of_range then
    raise exception using errcode = 'TL002', message = 'balance_out_of_range';
  end if;
  return coalesce(v_balances, '{}');
end
$$;

-- Moves up to p_limit queued deltas into the buckets (and into balances, those not applied by
-- their posting), in one transaction: a crash loses nothing (the queue rows come back) and counts
-- nothing twice. One fold runs at a time across every process (a fold that finds another running
-- answers 0 at once): two folds skipping each other's locked rows at the head of the queue cost
-- more than one folding both batches. Answers how many queued rows it folded, and when the oldest
-- was queued.
-- Folds up to p_limit queued deltas: of every workspace but those the sandbox holds back
-- (sandbox_fold_holds) or, with p_workspace_id, of that one workspace, held or not (a settle).
create or replace function fold_ledger_balance_queue(p_limit integer, p_workspace_id text default null)
returns table (folded integer, oldest timestamptz)
language plpgsql as $$
#variable_conflict use_column
declare
  v_oldest timestamptz;
  v_workspaces text[];
  v_accounts text[];
  v_currencies text[];
  v_hours timestamp[];
  v_amounts numeric[];
  v_lines bigint[];
  v_applied boolean[];
  v_taken integer;
begin
  if not pg_try_advisory_xact_lock(7310002) then
    return query select 0, null::timestamptz;
    return;
  end if;
  with taken as (
    -- = any(array(...)) probes the primary key; `in (subquery)` planned a hash join over a
    -- sequential scan of the whole queue, dead rows included, on every fold. No row locks first
    -- (a WAL record per row): a row a concurrent fold deleted is skipped by this delete, not returned.
    delete from ledger_balance_queue q
    where q.seq = any(case
      when p_workspace_id is not null then
        array(select seq from ledger_balance_queue w where w.workspace_id = p_workspace_id order by seq limit p_limit)
      -- Only a sandbox has holds: the plain probe of the queue's head stays the common path.
      when exists (select from sandbox_fold_holds) then
        array(select seq from ledger_balance_queue w
              where not exists (select from sandbox_fold_holds h where h.workspace_id = w.workspace_id)
              order by seq limit p_limit)
      else array(select seq from ledger_balance_queue order by seq limit p_limit)
    end)
    returning q.workspace_id, q.account_id, q.currency, q.local_hour, q.amount, q.line_count, q.balance_applied, q.enqueued
  ), grouped as (
    select workspace_id, account_id, currency, local_hour, balance_applied, sum(amount) as amount, sum(line_count) as lines,
           count(*) as rows, min(enqueued) as oldest
    from taken group by workspace_id, account_id, currency, local_hour, balance_applied
  )
  select array_agg(workspace_id), array_agg(account_id), array_agg(currency), array_agg(local_hour),
         array_agg(amount), array_agg(lines), array_agg(balance_applied), sum(rows)::integer, min(grouped.oldest)
  into v_workspaces, v_accounts, v_currencies, v_hours, v_amounts, v_lines, v_applied, v_taken, v_oldest
  from grouped;
  if v_taken is null then
    return query select 0, null::timestamptz;
    return;
  end if;

  insert into ledger_balance_buckets as k (workspace_id, account_id, grain, bucket, currency, amount, line_count)
  select t.workspace_id, t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency, sum(t.amount), sum(t.lines)
  from unnest(v_workspaces, v_accounts, v_currencies, v_hours, v_amounts, v_lines) as t(workspace_id, account_id, currency, local_hour, amount, lines)
  cross join (values ('hour'), ('day'), ('month'), ('year')) as g(grain)
  group by t.workspace_id, t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency
  order by t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency
  on conflict (workspace_id, account_id, grain, bucket, currency)
    do update set amount = k.amount + excluded.amount, line_count = k.line_count + excluded.line_count;

  -- Balance rows last: postings that bound an eventual account lock its row, so the fold holds
  -- those locks only for this statement and the commit, not for the whole batch.
  insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count)
  select t.workspace_id, t.account_id, t.currency, sum(t.amount), sum(t.lines)
  from unnest(v_workspaces, v_accounts, v_currencies, v_amounts, v_lines, v_applied) as t(workspace_id, account_id, currency, amount, lines, applied)
  where not t.applied
  group by t.workspace_id, t.account_id, t.currency
  order by t.account_id, t.currency
  on conflict (workspace_id, account_id, currency)
    do update set own_balance = b.own_balance + excluded.own_balance, line_count = b.line_count + excluded.line_count;
  return query select v_taken, v_oldest;
end
$$;

-- Recomputes the stored balances and history of a ledger's accounts (every ledger's when
-- p_ledger_id is null) from their lines, dropping queued deltas: for data written outside the
-- posting path (bulk loads). Run it while nothing posts to those ledgers.
create or replace function rebuild_balance_history(p_ledger_id text) returns void
language plpgsql as $$
begin
  create temporary table rebuilt_accounts on commit drop as
    select a.workspace_id, a.id, g.balance_utc_offset from ledger_accounts a
    join ledgers g on g.workspace_id = a.workspace_id and g.id = a.ledger_id
    where p_ledger_id is null or a.ledger_id = p_ledger_id;
  delete from ledger_balance_queue q using rebuilt_accounts r where q.workspace_id = r.workspace_id and q.account_id = r.id;
  delete from ledger_balance_buckets b using rebuilt_accounts r where b.workspace_id = r.workspace_id and b.account_id = r.id;
  delete from ledger_account_balances b using rebuilt_accounts r where b.workspace_id = r.workspace_id and b.account_id = r.id;

  insert into ledger_account_balances (workspace_id, account_id, currency, own_balance, line_count)
  select l.workspace_id, l.account_id, l.currency, sum(l.amount), count(*)
  from ledger_lines l join rebuilt_accounts r on r.workspace_id = l.workspace_id and r.id = l.account_id
  group by l.workspace_id, l.account_id, l.currency;

  insert into ledger_balance_buckets (workspace_id, account_id, grain, bucket, currency, amount, line_count)
  select h.workspace_id, h.account_id, g.grain, date_trunc(g.grain, h.hour), h.currency, sum(h.amount), sum(h.lines)
  from (
    select l.workspace_id, l.account_id, l.currency, ledger_local_hour(l.posted, r.balance_utc_offset) as hour, sum(l.amount) as amount, count(*) as lines
    from ledger_lines l join rebuilt_accounts r on r.workspace_id = l.workspace_id and r.id = l.account_id
    group by 1, 2, 3, 4
  ) h
  cross join (values ('hour'), ('day'), ('month'), ('year')) as g(grain)
  group by h.workspace_id, h.account_id, g.grain, date_trunc(g.grain, h.hour), h.currency;
  drop table rebuilt_accounts;
end
$$;
