-- Entries, their append-only lines, and each account's current own balance per currency.
-- Lines are never updated; corrections are reversals (entries sharing the ik, by position).
create table ledger_entries (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  type text,
  type_version integer,
  parameters jsonb,
  description text,
  posted timestamptz not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  tags jsonb not null default '[]',
  groups jsonb not null default '[]',
  conditions jsonb not null default '[]',
  reversal_position integer not null default 1,
  reverses_id text,
  reversed_by_id text,
  reversed_at timestamptz,
  -- Hash of the posting request: a replayed ik with a different payload is detected, not ignored.
  request_hash text not null,
  constraint ledger_entries_pkey primary key (workspace_id, id),
  constraint ledger_entries_ik_key unique (workspace_id, ledger_id, ik, reversal_position),
  constraint ledger_entries_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id)
);
create index ledger_entries_posted_idx on ledger_entries (workspace_id, ledger_id, posted desc, id desc);

create table ledger_lines (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  entry_id text not null,
  position smallint not null,
  account_id text not null,
  currency text not null,
  amount numeric(37, 0) not null,
  key text,
  description text,
  tags jsonb not null default '[]',
  posted timestamptz not null,
  created timestamptz not null,
  constraint ledger_lines_pkey primary key (workspace_id, id),
  constraint ledger_lines_position_key unique (workspace_id, entry_id, position),
  constraint ledger_lines_entry_fkey foreign key (workspace_id, entry_id) references ledger_entries (workspace_id, id),
  constraint ledger_lines_account_fkey foreign key (workspace_id, account_id) references ledger_accounts (workspace_id, id)
);
create index ledger_lines_account_posted_idx on ledger_lines (workspace_id, account_id, posted desc, id desc);

-- The Int96 range, ±(2^120 − 1): a sum that would leave it is refused, never wrapped.
create table ledger_account_balances (
  workspace_id text not null,
  account_id text not null,
  currency text not null,
  own_balance numeric(37, 0) not null default 0,
  line_count bigint not null default 0,
  constraint ledger_account_balances_pkey primary key (workspace_id, account_id, currency),
  constraint ledger_account_balances_account_fkey foreign key (workspace_id, account_id) references ledger_accounts (workspace_id, id),
  constraint ledger_account_balances_int96_check check (abs(own_balance) <= 1329227995784915872903807060280344575)
);

-- Posts one entry in one statement (one round trip): records the ik, adds the lines to the
-- balances (rows locked in account and currency order, so entries touching the same accounts
-- in any order never deadlock), checks the conditions against the balances before and after,
-- and appends the lines. A replayed ik changes nothing and names the entry that holds it.
create function post_ledger_entry(
  p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text,
  p_posted timestamptz, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb,
  p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[]
) returns table (posted_entry_id text, posted_request_hash text, replayed boolean)
language plpgsql as $$
#variable_conflict use_column
declare
  v_created timestamptz;
  v_balances jsonb;
  v_condition jsonb;
  v_pair jsonb;
begin
  insert into ledger_entries (workspace_id, ledger_id, id, ik, description, posted, tags, groups, conditions, request_hash)
  values (p_workspace_id, p_ledger_id, p_entry_id, p_ik, p_description, p_posted, p_tags, p_groups, p_conditions, p_request_hash)
  on conflict (workspace_id, ledger_id, ik, reversal_position) do nothing
  returning created into v_created;
  if v_created is null then
    return query
      select e.id, e.request_hash, true from ledger_entries e
      where e.workspace_id = p_workspace_id and e.ledger_id = p_ledger_id and e.ik = p_ik
      order by e.reversal_position desc limit 1;
    return;
  end if;

  with deltas as (
    select t.account_id, t.currency, sum(t.amount) as delta, count(*) as lines
    from unnest(p_account_ids, p_currencies, p_amounts) as t(account_id, currency, amount)
    group by t.account_id, t.currency
  ), updated as (
    insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count)
    select p_workspace_id, d.account_id, d.currency, d.delta, d.lines from deltas d order by d.account_id, d.currency
    on conflict (workspace_id, account_id, currency)
      do update set own_balance = b.own_balance + excluded.own_balance, line_count = b.line_count + excluded.line_count
    returning b.account_id, b.currency, b.own_balance
  )
  select jsonb_object_agg(u.account_id || '|' || u.currency, jsonb_build_array(u.own_balance::text, d.delta::text))
  into v_balances
  from updated u join deltas d on d.account_id = u.account_id and d.currency = u.currency;

  for v_condition in select value from jsonb_array_elements(p_conditions) loop
    v_pair := v_balances -> ((v_condition->>'accountId') || '|' || (v_condition->>'currency'));
    if v_pair is null or not (
      condition_holds((v_pair->>0)::numeric - (v_pair->>1)::numeric, v_condition->'precondition')
      and condition_holds((v_pair->>0)::numeric, v_condition->'postcondition')) then
      raise exception using errcode = 'P0001', message = 'entry_condition_failed', detail = v_condition->>'index';
    end if;
  end loop;

  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, posted, created)
  select p_workspace_id, p_ledger_id, t.id, p_entry_id, t.position::smallint, t.account_id, t.currency, t.amount, t.key,
         coalesce(t.description, p_description), p_posted, v_created
  from unnest(p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_descriptions)
    with ordinality as t(id, account_id, currency, amount, key, description, position);

  return query select p_entry_id, p_request_hash, false;
end
$$;

-- True when the balance meets {eq, gte, lte} (absent bounds hold).
create function condition_holds(p_balance numeric, p_condition jsonb) returns boolean
language sql immutable as $$
  select p_condition is null or jsonb_typeof(p_condition) = 'null' or (
    (p_condition->>'eq' is null or p_balance = (p_condition->>'eq')::numeric) and
    (p_condition->>'gte' is null or p_balance >= (p_condition->>'gte')::numeric) and
    (p_condition->>'lte' is null or p_balance <= (p_condition->>'lte')::numeric))
$$;
