-- Balances over time, and eventual balance updates.
--
-- Every posting's effect on an account is also kept as deltas in calendar buckets of the
-- ledger's local time (hour, day, month and year at its balanceUTCOffset, which never changes).
-- A balance at a moment or a change over a period is then a sum of a few dozen buckets however
-- long the history, and a backdated entry adds to four buckets like any other entry.
--
-- A posting appends its deltas to a queue; a background fold moves them into the buckets in
-- batches, so thousands of postings to one account cost a handful of bucket updates. Accounts
-- whose ownBalanceUpdates is strong also update their balance row in the posting, under its
-- lock (conditions need it); eventual ones take no lock at all, and the fold applies their
-- deltas to the balance row too. Reads add the queued deltas, so they see every committed
-- posting either way.

create table ledger_balance_buckets (
  workspace_id text not null,
  account_id text not null,
  grain text not null check (grain in ('hour', 'day', 'month', 'year')),
  -- Start of the bucket, wall-clock time at the ledger's offset.
  bucket timestamp not null,
  currency text not null,
  amount numeric not null,
  line_count bigint not null,
  constraint ledger_balance_buckets_pkey primary key (workspace_id, account_id, grain, bucket, currency)
);

create table ledger_balance_queue (
  seq bigint generated always as identity primary key,
  workspace_id text not null,
  account_id text not null,
  currency text not null,
  local_hour timestamp not null,
  amount numeric not null,
  line_count integer not null,
  -- True when the posting already added the delta to the balance row (strong updates).
  balance_applied boolean not null,
  enqueued timestamptz not null default clock_timestamp()
);
create index ledger_balance_queue_account_idx on ledger_balance_queue (workspace_id, account_id, currency);

-- Queued deltas can take a folded balance past Int96 (nothing locks them), and the fold must
-- never fail: the range is checked where a balance is posted under lock and where it is read.
alter table ledger_account_balances drop constraint ledger_account_balances_int96_check;
alter table ledger_account_balances alter column own_balance type numeric;

-- The local wall-clock hour an instant falls in, at a ledger's offset ('+05:30', '-09:30').
create function ledger_local_hour(p_posted timestamptz, p_offset text) returns timestamp
language sql immutable as $$
  select date_trunc('hour', (p_posted at time zone 'UTC') + p_offset::interval)
$$;

create function int96_max() returns numeric language sql immutable as $$ select 1329227995784915872903807060280344575::numeric $$;

-- Applies one entry's lines (all posted at p_posted): every delta is queued for the buckets;
-- accounts with strong own balance updates, or whose own balance the entry bounds
-- (p_bounded_account_ids: a bound needs the row locked), also update their balance row here,
-- rows locked in (account, currency) order. Answers, per updated row, its balance after the
-- entry and the entry's delta, for the conditions.
create function apply_balance_deltas(p_workspace_id text, p_ledger_id text, p_posted timestamptz,
                                     p_account_ids text[], p_currencies text[], p_amounts numeric[],
                                     p_bounded_account_ids text[]) returns jsonb
language plpgsql as $$
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
    select d.*, coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual'
                or d.account_id = any(coalesce(p_bounded_account_ids, '{}')) as applied
    from deltas d left join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = d.account_id
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select p_workspace_id, d.account_id, d.currency, ledger_local_hour(p_posted, l.balance_utc_offset), d.delta, d.lines, d.applied
    from decided d join ledgers l on l.workspace_id = p_workspace_id and l.id = p_ledger_id
  ), updated as (
    insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count)
    select p_workspace_id, d.account_id, d.currency, d.delta, d.lines from decided d
    where d.applied
    order by d.account_id, d.currency
    on conflict (workspace_id, account_id, currency)
      do update set own_balance = b.own_balance + excluded.own_balance, line_count = b.line_count + excluded.line_count
    returning b.account_id, b.currency, b.own_balance
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
    raise exception using errcode = 'P0001', message = 'balance_out_of_range';
  end if;
  return coalesce(v_balances, '{}');
end
$$;

-- Moves up to p_limit queued deltas into the buckets (and into balances, those not applied by
-- their posting), in one transaction: a crash loses nothing (the queue rows come back) and counts
-- nothing twice. Concurrent folds take disjoint rows. Answers how many queued rows it folded, and
-- when the oldest was queued.
create function fold_ledger_balance_queue(p_limit integer) returns table (folded integer, oldest timestamptz)
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
  with taken as (
    delete from ledger_balance_queue q
    where q.seq in (select seq from ledger_balance_queue order by seq limit p_limit for update skip locked)
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

  insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count)
  select t.workspace_id, t.account_id, t.currency, sum(t.amount), sum(t.lines)
  from unnest(v_workspaces, v_accounts, v_currencies, v_amounts, v_lines, v_applied) as t(workspace_id, account_id, currency, amount, lines, applied)
  where not t.applied
  group by t.workspace_id, t.account_id, t.currency
  order by t.account_id, t.currency
  on conflict (workspace_id, account_id, currency)
    do update set own_balance = b.own_balance + excluded.own_balance, line_count = b.line_count + excluded.line_count;

  insert into ledger_balance_buckets as k (workspace_id, account_id, grain, bucket, currency, amount, line_count)
  select t.workspace_id, t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency, sum(t.amount), sum(t.lines)
  from unnest(v_workspaces, v_accounts, v_currencies, v_hours, v_amounts, v_lines) as t(workspace_id, account_id, currency, local_hour, amount, lines)
  cross join (values ('hour'), ('day'), ('month'), ('year')) as g(grain)
  group by t.workspace_id, t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency
  order by t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency
  on conflict (workspace_id, account_id, grain, bucket, currency)
    do update set amount = k.amount + excluded.amount, line_count = k.line_count + excluded.line_count;
  return query select v_taken, v_oldest;
end
$$;

-- Total balances count queued deltas too: a total-balance bound sees every committed posting.
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

-- Posting, as before, with balances applied by apply_balance_deltas.
create or replace function post_ledger_entry(
  p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text,
  p_type text, p_type_version integer, p_parameters jsonb,
  p_posted timestamptz, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb,
  p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[],
  p_line_tags jsonb
) returns table (posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamptz, posted_position integer)
language plpgsql as $$
#variable_conflict use_column
declare
  v_created timestamptz;
  v_balances jsonb;
  v_condition jsonb;
  v_pair jsonb;
  v_last_position integer;
  v_last_is_reversal boolean;
  v_has_totals boolean := jsonb_path_exists(p_conditions, '$[*] ? (exists(@.totalPrecondition) || exists(@.totalPostcondition))');
  v_bounded text[];
  v_total numeric;
  v_subtree_delta numeric;
begin
  select e.reversal_position, e.reverses_id is not null into v_last_position, v_last_is_reversal
  from ledger_entries e
  where e.workspace_id = p_workspace_id and e.ledger_id = p_ledger_id and e.ik = p_ik
  order by e.reversal_position desc limit 1;
  if v_last_position is null or v_last_is_reversal then
    insert into ledger_entries (workspace_id, ledger_id, id, ik, type, type_version, parameters, description, posted, tags, groups,
                                conditions, reversal_position, request_hash)
    values (p_workspace_id, p_ledger_id, p_entry_id, p_ik, p_type, p_type_version, p_parameters, p_description, p_posted, p_tags,
            p_groups, p_conditions, coalesce(v_last_position + 1, 1), p_request_hash)
    on conflict (workspace_id, ledger_id, ik, reversal_position) do nothing
    returning created into v_created;
  end if;
  if v_created is null then
    return query
      select e.id, e.request_hash, true, e.created, e.reversal_position from ledger_entries e
      where e.workspace_id = p_workspace_id and e.ledger_id = p_ledger_id and e.ik = p_ik
      order by e.reversal_position desc limit 1;
    return;
  end if;

  -- Lines first: the balance rows, which a hot account's postings queue on, are locked only for
  -- the update, the conditions and the commit.
  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, tags, posted, created)
  select p_workspace_id, p_ledger_id, t.id, p_entry_id, t.position::smallint, t.account_id, t.currency, t.amount, t.key,
         coalesce(t.description, p_description), coalesce(p_line_tags -> (t.position::integer - 1), '[]'), p_posted, v_created
  from unnest(p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_descriptions)
    with ordinality as t(id, account_id, currency, amount, key, description, position);

  if v_has_totals then
    perform lock_for_total_conditions(p_workspace_id, p_ledger_id, p_conditions, p_account_ids, p_currencies);
  end if;

  select array_agg(c.value->>'accountId') into v_bounded
  from jsonb_array_elements(p_conditions) c where c.value ? 'precondition' or c.value ? 'postcondition';
  v_balances := apply_balance_deltas(p_workspace_id, p_ledger_id, p_posted, p_account_ids, p_currencies, p_amounts, v_bounded);

  for v_condition in select value from jsonb_array_elements(p_conditions) loop
    if v_condition ? 'precondition' or v_condition ? 'postcondition' then
      v_pair := v_balances -> ((v_condition->>'accountId') || '|' || (v_condition->>'currency'));
      if v_pair is null or not (
        condition_holds((v_pair->>0)::numeric - (v_pair->>1)::numeric, v_condition->'precondition')
        and condition_holds((v_pair->>0)::numeric, v_condition->'postcondition')) then
        raise exception using errcode = 'P0001', message = 'entry_condition_failed', detail = v_condition->>'index';
      end if;
    end if;
    if v_condition ? 'totalPrecondition' or v_condition ? 'totalPostcondition' then
      -- A new statement, so a new snapshot: every posting that held one of the locked rows has committed.
      v_total := total_balance(p_workspace_id, v_condition->>'accountId', v_condition->>'currency');
      select coalesce(sum(t.amount), 0) into v_subtree_delta
      from unnest(p_account_ids, p_currencies, p_amounts) as t(account_id, currency, amount)
      join ledger_accounts root on root.workspace_id = p_workspace_id and root.id = v_condition->>'accountId'
      join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = t.account_id
      where t.currency = v_condition->>'currency' and (a.id = root.id or a.path like like_prefix(root.path) || '/%');
      if not (condition_holds(v_total - v_subtree_delta, v_condition->'totalPrecondition')
              and condition_holds(v_total, v_condition->'totalPostcondition')) then
        raise exception using errcode = 'P0001', message = 'entry_condition_failed', detail = v_condition->>'index';
      end if;
    end if;
  end loop;

  return query select p_entry_id, p_request_hash, false, v_created, coalesce(v_last_position + 1, 1);
end
$$;

-- Reversal, as before, with balances applied by apply_balance_deltas at the original posted time.
create or replace function reverse_ledger_entry(p_workspace_id text, p_entry_id text, p_new_entry_id text, p_line_ids text[])
returns table (reversed_id text, reversing_id text, replayed boolean)
language plpgsql as $$
#variable_conflict use_column
declare
  v_entry ledger_entries;
  v_position integer;
  v_created timestamptz;
  v_accounts text[];
  v_currencies text[];
  v_amounts numeric[];
begin
  select * into v_entry from ledger_entries e where e.workspace_id = p_workspace_id and e.id = p_entry_id for update;
  if not found then
    return;
  end if;
  if v_entry.reverses_id is not null then
    return query select v_entry.reverses_id, v_entry.id, true;
    return;
  end if;
  if v_entry.reversed_by_id is not null then
    return query select v_entry.id, v_entry.reversed_by_id, true;
    return;
  end if;
  select max(e.reversal_position) + 1 into v_position from ledger_entries e
  where e.workspace_id = p_workspace_id and e.ledger_id = v_entry.ledger_id and e.ik = v_entry.ik;

  insert into ledger_entries (workspace_id, ledger_id, id, ik, type, type_version, parameters, description, posted, tags, groups,
                              conditions, reversal_position, reverses_id, request_hash)
  values (p_workspace_id, v_entry.ledger_id, p_new_entry_id, v_entry.ik, v_entry.type, v_entry.type_version, v_entry.parameters,
          v_entry.description, v_entry.posted, v_entry.tags, v_entry.groups, '[]', v_position, v_entry.id, 'reversal')
  returning created into v_created;
  update ledger_entries e set reversed_by_id = p_new_entry_id, reversed_at = v_created
  where e.workspace_id = p_workspace_id and e.id = p_entry_id;

  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, tags, posted, created)
  select p_workspace_id, l.ledger_id, p_line_ids[l.position], p_new_entry_id, l.position, l.account_id, l.currency, -l.amount, l.key,
         l.description, l.tags, l.posted, v_created
  from ledger_lines l where l.workspace_id = p_workspace_id and l.entry_id = p_entry_id;

  select array_agg(l.account_id), array_agg(l.currency), array_agg(-l.amount) into v_accounts, v_currencies, v_amounts
  from ledger_lines l where l.workspace_id = p_workspace_id and l.entry_id = p_entry_id;
  perform apply_balance_deltas(p_workspace_id, v_entry.ledger_id, v_entry.posted, v_accounts, v_currencies, v_amounts, null);

  return query select p_entry_id, p_new_entry_id, false;
end
$$;

-- Recomputes the stored balances and history of a ledger's accounts (every ledger's when
-- p_ledger_id is null) from their lines, dropping queued deltas: for data written outside the
-- posting path (this migration, bulk loads). Run it while nothing posts to those ledgers.
create function rebuild_balance_history(p_ledger_id text) returns void
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

-- Existing history, bucketed once.
select rebuild_balance_history(null);
