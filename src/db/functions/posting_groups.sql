-- Group commit: the entries that arrived together, written by one set-based statement sequence
-- in one transaction (one round trip, one commit, one WAL flush). Each entry is answered as if it
-- had been posted alone in the group's order: a replayed ik names the entry that holds it, a
-- failed own-balance condition refuses only its entry. The server never puts an ik twice in one
-- group, nor an entry that bounds a total balance (those post alone).

-- The judgment of own-balance conditions inside a group, in arrival order. p_balances maps
-- 'account|currency' to each bounded pair's balance before the group (read under lock); the
-- lines given are those on bounded pairs, sorted by their entry's ordinal, and p_ordinals (sorted)
-- names every entry with conditions or such lines. An entry that holds adds its deltas before the
-- next is judged. Answers, per judged ordinal, the failed condition's index or null.
create or replace function judge_group_conditions(p_balances jsonb, p_ordinals integer[], p_conditions jsonb,
                                                  p_line_entries integer[], p_line_keys text[], p_amounts numeric[])
returns table (ordinal integer, failed_condition integer)
language plpgsql as $$
#variable_conflict use_column
declare
  v_balances jsonb := p_balances;
  v_ordinal integer;
  v_condition jsonb;
  v_failed integer;
  v_before numeric;
  v_delta numeric;
  v_key text;
  v_next integer := 1;
  v_first integer;
  v_line integer;
begin
  foreach v_ordinal in array p_ordinals loop
    -- This entry's lines are p_line_entries[v_first .. v_next - 1].
    v_first := v_next;
    while v_next <= coalesce(array_length(p_line_entries, 1), 0) and p_line_entries[v_next] = v_ordinal loop
      v_next := v_next + 1;
    end loop;
    v_failed := null;
    for v_condition in select c.value from jsonb_array_elements(p_conditions -> (v_ordinal - 1)) c
                       order by (c.value->>'index')::integer loop
      continue when not (v_condition ? 'precondition' or v_condition ? 'postcondition');
      v_key := (v_condition->>'accountId') || '|' || (v_condition->>'currency');
      v_before := (v_balances->>v_key)::numeric;
      v_delta := 0;
      for v_line in v_first .. v_next - 1 loop
        if p_line_keys[v_line] = v_key then
          v_delta := v_delta + p_amounts[v_line];
        end if;
      end loop;
      if v_before is null or not coalesce(condition_holds(v_before, v_condition->'precondition')
                                          and condition_holds(v_before + v_delta, v_condition->'postcondition'), false) then
        v_failed := (v_condition->>'index')::integer;
        exit;
      end if;
    end loop;
    if v_failed is null then
      -- The entry holds: its deltas move the balances the next entries are judged on.
      for v_line in v_first .. v_next - 1 loop
        v_balances := jsonb_set(v_balances, array[p_line_keys[v_line]],
                                to_jsonb(((v_balances->>p_line_keys[v_line])::numeric + p_amounts[v_line])::text));
      end loop;
    end if;
    return query select v_ordinal, v_failed;
  end loop;
end
$$;

-- The all-or-nothing rule of a batch (post_ledger_entry_group with p_all_or_nothing): raises
-- batch_refused (TL010) for the first entry a condition refused (detail: {"entry", "failedCondition"})
-- or else the first not claimed whose ik another request's entry holds (detail: {"entry", and
-- that entry's "entryId", "requestHash", "created", "position"}); entries are 1-based ordinals.
create or replace function refuse_batch(p_workspace_ids text[], p_ledger_ids text[], p_iks text[], p_request_hashes text[],
                                        p_claimed integer[], p_refused integer[], p_failed integer[])
returns void
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
declare
  v_detail jsonb;
begin
  select jsonb_build_object('entry', r.o, 'failedCondition', r.failed) into v_detail
  from unnest(p_refused, p_failed) as r(o, failed) order by r.o limit 1;
  if v_detail is null then
    select jsonb_build_object('entry', o, 'entryId', last.id, 'requestHash', last.request_hash, 'created', last.created,
                              'position', last.reversal_position)
    into v_detail
    from generate_subscripts(p_iks, 1) o
    cross join lateral ik_holder(p_workspace_ids[o], p_ledger_ids[o], p_iks[o]) last
    where not o = any(p_claimed) and last.request_hash <> p_request_hashes[o]
    order by o limit 1;
  end if;
  if v_detail is not null then
    raise exception using errcode = 'TL010', message = 'batch_refused', detail = v_detail::text;
  end if;
end
$$;

-- Entries are given as parallel arrays (one element per entry, in arrival order; jsonb arrays
-- for the jsonb columns), lines as parallel arrays naming their entry by its 1-based ordinal.
-- p_ledger_revisions (per entry) refuses the whole group first when an entry was prepared from a
-- ledger revision no longer current (posting_target_changed): the server then posts each alone.
-- p_local_hours (per entry) and p_line_strong (per line) are what the server prepared from that
-- revision: each entry's local hour at its ledger's offset, whether each line's account is strong.
-- p_new_accounts plans the template instances entries create (create_planned_accounts' rows,
-- each with its entry's ordinal as "entry"). Steps, in the lock order every posting uses
-- (new account paths, iks, then balance rows by account and currency):
-- 0. create the planned accounts; lines and conditions naming a planned id that lost its race
--    to an existing account are pointed at that account (the entry answers remapped);
-- 1. claim the iks, sorted, with one insert (a repost continues a chain ended by a reversal);
-- 2. when a claimed entry has conditions: lock every balance row the group updates under a lock,
--    read the bounded balances and judge the entries in order; refused claims are withdrawn;
-- 3. insert the written entries' lines;
-- 4. add the strong and bounded deltas to the balance rows, each row updated once (in its open
--    hour: add_to_balance_rows), and queue the others, one row per account, currency and local hour;
-- then remove the accounts only refused or replayed entries planned, and answer every ordinal. Raises balance_out_of_range (TL002) like apply_balance_deltas: the
-- server then posts the group's entries one by one, so only the offending entry is refused.
-- With p_all_or_nothing (one addLedgerEntries call), the first entry refused by a condition, or
-- else the first whose ik is held by another request's entry, raises batch_refused (TL010) with
-- its answer as JSON detail, so that nothing of the batch stays: one statement, no transaction
-- around it.
-- Seq scans are off: its statements are key probes, and a generic plan cached while the balance
-- queue was nearly empty went on scanning the whole queue once it had grown (0.3 -> 4.2 ms a call).
create or replace function post_ledger_entry_group(
  p_workspace_ids text[], p_ledger_ids text[], p_entry_ids text[], p_iks text[], p_request_hashes text[],
  p_types text[], p_type_versions integer[], p_posted timestamptz[], p_descriptions text[],
  p_parameters jsonb, p_tags jsonb, p_groups jsonb, p_conditions jsonb,
  p_line_entries integer[], p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[],
  p_keys text[], p_line_descriptions text[], p_line_tags jsonb, p_new_accounts jsonb, p_all_or_nothing boolean default false,
  p_ledger_revisions bigint[] default null, p_local_hours timestamp[] default null, p_line_strong boolean[] default null
) returns table (ordinal integer, posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamptz,
                 posted_position integer, failed_condition integer, remapped boolean)
language plpgsql
set plan_cache_mode = force_generic_plan
set enable_seqscan = off
as $$
#variable_conflict use_column
declare
  v_claimed integer[];
  v_created timestamptz[];
  v_positions integer[];
  v_conditioned integer[];
  v_bounded_workspaces text[];
  v_bounded_pair_accounts text[];
  v_bounded_currencies text[];
  v_bounded_accounts text[] := '{}';
  v_lock_workspaces text[];
  v_lock_accounts text[];
  v_lock_currencies text[];
  v_balances jsonb;
  v_refused integer[] := '{}';
  v_failed integer[] := '{}';
  v_written integer[];
  v_out_of_range boolean;
  v_queued_accounts text[];
  v_remap jsonb := '{}';
  v_remapped integer[] := '{}';
begin
  if p_ledger_revisions is not null then
    perform require_current_ledger_revisions(p_workspace_ids, p_ledger_ids, p_ledger_revisions);
  end if;
  -- 0. Template instances. Their paths are the first locks an entry takes, as on every path.
  if jsonb_array_length(p_new_accounts) > 0 then
    select coalesce(jsonb_object_agg(m.planned_id, m.account_id), '{}') into v_remap
    from create_planned_accounts(p_new_accounts) m where m.planned_id <> m.account_id;
    if v_remap <> '{}' then
      p_account_ids := array(select coalesce(v_remap->>a.id, a.id) from unnest(p_account_ids) with ordinality as a(id, n) order by a.n);
      p_conditions := (
        select jsonb_agg(
                 (select coalesce(jsonb_agg(case when v_remap ? (c.value->>'accountId')
                                                 then jsonb_set(c.value, '{accountId}', v_remap->(c.value->>'accountId'))
                                                 else c.value end order by c.n), '[]')
                  from jsonb_array_elements(e.value) with ordinality as c(value, n))
                 order by e.n)
        from jsonb_array_elements(p_conditions) with ordinality as e(value, n));
      select coalesce(array_agg(distinct (a->>'entry')::integer), '{}') into v_remapped
      from jsonb_array_elements(p_new_accounts) a where v_remap ? (a->>'id');
    end if;
  end if;

  -- 1. Claims. A concurrent twin of an ik waits here until its holder commits (then replays) or withdraws.
  with entry as (
    select * from unnest(p_workspace_ids, p_ledger_ids, p_entry_ids, p_iks, p_request_hashes, p_types, p_type_versions,
                         p_posted, p_descriptions)
      with ordinality as e(workspace_id, ledger_id, id, ik, request_hash, type, type_version, posted, description, ordinal)
  ), claim as (
    insert into ledger_entries as t (workspace_id, ledger_id, id, ik, type, type_version, parameters, description, posted, tags,
                                     groups, conditions, reversal_position, request_hash)
    select e.workspace_id, e.ledger_id, e.id, e.ik, e.type, e.type_version, nullif(p_parameters -> (e.ordinal::integer - 1), 'null'),
           e.description, e.posted, p_tags -> (e.ordinal::integer - 1), p_groups -> (e.ordinal::integer - 1),
           p_conditions -> (e.ordinal::integer - 1), coalesce(last.reversal_position + 1, 1), e.request_hash
    from entry e
    left join lateral ik_holder(e.workspace_id, e.ledger_id, e.ik) last on true
    where last.reversal_position is null or last.reverses_id is not null
    order by e.workspace_id, e.ledger_id, e.ik
    on conflict (workspace_id, ledger_id, ik, reversal_position) do nothing
    returning t.workspace_id, t.id, t.created, t.reversal_position
  )
  select array_agg(e.ordinal::integer order by e.ordinal), array_agg(c.created order by e.ordinal),
         array_agg(c.reversal_position order by e.ordinal)
  into v_claimed, v_created, v_positions
  from claim c join entry e on e.workspace_id = c.workspace_id and e.id = c.id;
  v_claimed := coalesce(v_claimed, '{}');

  -- 2. Conditions, judged in arrival order on balances locked for the whole group.
  select array_agg(o order by o) into v_conditioned
  from unnest(v_claimed) o where jsonb_array_length(p_conditions -> (o - 1)) > 0;
  if v_conditioned is not null then
    -- The pairs whose own balance a claimed entry bounds, read from the conditions once.
    select coalesce(array_agg(k.workspace_id), '{}'), coalesce(array_agg(k.account_id), '{}'),
           coalesce(array_agg(k.currency), '{}'), coalesce(array_agg(distinct k.account_id), '{}')
    into v_bounded_workspaces, v_bounded_pair_accounts, v_bounded_currencies, v_bounded_accounts
    from (select distinct p_workspace_ids[o] as workspace_id, c.value->>'accountId' as account_id, c.value->>'currency' as currency
          from unnest(v_conditioned) o cross join jsonb_array_elements(p_conditions -> (o - 1)) c
          where c.value ? 'precondition' or c.value ? 'postcondition') k;

    -- Every row the group updates under a lock (strong or bounded accounts) and every bounded
    -- pair, created or locked in one ordered pass before any balance is read.
    select array_agg(k.workspace_id), array_agg(k.account_id), array_agg(k.currency)
    into v_lock_workspaces, v_lock_accounts, v_lock_currencies
    from (
      select p_workspace_ids[l.entry] as workspace_id, l.account_id, l.currency
      from unnest(p_line_entries, p_account_ids, p_currencies) as l(entry, account_id, currency)
      join ledger_accounts a on a.workspace_id = p_workspace_ids[l.entry] and a.id = l.account_id
      where l.entry = any(v_claimed)
        and (coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual' or l.account_id = any(v_bounded_accounts))
      union
      select * from unnest(v_bounded_workspaces, v_bounded_pair_accounts, v_bounded_currencies)
    ) k;
    perform lock_balance_rows(v_lock_workspaces, v_lock_accounts, v_lock_currencies);

    -- A new statement after the locks: every posting that held these rows has committed.
    select jsonb_object_agg(b.account_id || '|' || b.currency,
             (b.own_balance + coalesce((select sum(q.amount) from ledger_balance_queue q
                                        where q.workspace_id = b.workspace_id and q.account_id = b.account_id
                                          and q.currency = b.currency and not q.balance_applied), 0))::text)
    into v_balances
    from ledger_account_balances b
    join unnest(v_bounded_workspaces, v_bounded_pair_accounts, v_bounded_currencies) as k(workspace_id, account_id, currency)
      on b.workspace_id = k.workspace_id and b.account_id = k.account_id and b.currency = k.currency;

    -- Entries without conditions move bounded balances too, so every claimed entry with a line
    -- on a bounded pair is judged in order (with no conditions, it always holds).
    with relevant as (
      select l.entry, l.account_id || '|' || l.currency as key, l.amount, l.seq
      from unnest(p_line_entries, p_account_ids, p_currencies, p_amounts) with ordinality as l(entry, account_id, currency, amount, seq)
      where l.entry = any(v_claimed) and v_balances ? (l.account_id || '|' || l.currency)
    )
    select coalesce(array_agg(j.ordinal) filter (where j.failed_condition is not null), '{}'),
           coalesce(array_agg(j.failed_condition) filter (where j.failed_condition is not null), '{}')
    into v_refused, v_failed
    from judge_group_conditions(
      coalesce(v_balances, '{}'),
      (select array_agg(distinct o order by o) from (select unnest(v_conditioned) union select entry from relevant) as t(o)),
      p_conditions,
      coalesce((select array_agg(r.entry order by r.entry, r.seq) from relevant r), '{}'),
      coalesce((select array_agg(r.key order by r.entry, r.seq) from relevant r), '{}'),
      coalesce((select array_agg(r.amount order by r.entry, r.seq) from relevant r), '{}')) j;
    if cardinality(v_refused) > 0 then
      delete from ledger_entries x
      using unnest(v_refused) o
      where x.workspace_id = p_workspace_ids[o] and x.id = p_entry_ids[o];
    end if;
  end if;

  -- Nothing to refuse when every entry claimed its ik and held.
  if p_all_or_nothing and (cardinality(v_refused) > 0 or cardinality(v_claimed) < cardinality(p_iks)) then
    perform refuse_batch(p_workspace_ids, p_ledger_ids, p_iks, p_request_hashes, v_claimed, v_refused, v_failed);
  end if;

  select coalesce(array_agg(o order by o), '{}') into v_written from unnest(v_claimed) o where not o = any(v_refused);

  -- 3. Lines of the written entries.
  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, tags,
                            posted, created)
  select p_workspace_ids[l.entry], p_ledger_ids[l.entry], l.id, p_entry_ids[l.entry],
         (row_number() over (partition by l.entry order by l.seq))::smallint, l.account_id, l.currency, l.amount, l.key,
         coalesce(l.description, p_descriptions[l.entry]), coalesce(p_line_tags -> (l.seq::integer - 1), '[]'),
         p_posted[l.entry], v_created[array_position(v_claimed, l.entry)]
  from unnest(p_line_entries, p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_line_descriptions)
    with ordinality as l(entry, id, account_id, currency, amount, key, description, seq)
  where l.entry = any(v_written);

  -- 4. Balance deltas of the written entries, aggregated: one update per balance row, in
  -- (account, currency) order; one queue row per account, currency and local hour of the others.
  with line as (
    select p_workspace_ids[l.entry] as workspace_id, p_ledger_ids[l.entry] as ledger_id, p_posted[l.entry] as posted,
           l.account_id, l.currency, l.amount, p_local_hours[l.entry] as given_hour,
           -- Read instead: a planned account another posting created first (it may not be the one
           -- planned), and every line of a group whose rows step 2 locked from what it read.
           case when v_lock_accounts is null and not l.entry = any(v_remapped) then p_line_strong[l.seq] end as given_strong
    from unnest(p_line_entries, p_account_ids, p_currencies, p_amounts) with ordinality as l(entry, account_id, currency, amount, seq)
    where l.entry = any(v_written)
  ), decided as (
    -- Each entry's local hour and each line's strong account, as the server prepared them (their
    -- ledger revision is checked above); read here when not given (the subqueries run only then).
    select l.workspace_id, l.ledger_id, l.posted, l.account_id, l.currency, l.amount,
           coalesce(l.given_hour, (select ledger_local_hour(l.posted, g.balance_utc_offset) from ledgers g
                                   where g.workspace_id = l.workspace_id and g.id = l.ledger_id)) as local_hour,
           coalesce(l.given_strong,
                    (select coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual' from ledger_accounts a
                     where a.workspace_id = l.workspace_id and a.id = l.account_id),
                    true)
             or l.account_id = any(v_bounded_accounts) as applied
    from line l
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select d.workspace_id, d.account_id, d.currency, d.local_hour, sum(d.amount), count(*), false
    from decided d
    where not d.applied
    group by d.workspace_id, d.account_id, d.currency, d.local_hour
  ), updated as (
    select u.*
    from (select array_agg(d.workspace_id) as workspace_ids, array_agg(d.account_id) as account_ids,
                 array_agg(d.currency) as currencies, array_agg(d.local_hour) as hours, array_agg(d.amount) as amounts,
                 array_agg(1::bigint) as lines
          from decided d where d.applied) h
    cross join lateral add_to_balance_rows(h.workspace_ids, h.account_ids, h.currencies, h.hours, h.amounts, h.lines) u
  )
  select coalesce((select bool_or(abs(u.own_balance) > int96_max()) from updated u), false),
         array_agg(distinct d.account_id) filter (where not d.applied)
  into v_out_of_range, v_queued_accounts
  from decided d;
  if v_out_of_range then
    raise exception using errcode = 'TL002', message = 'balance_out_of_range';
  end if;
  -- Rows of eventual accounts take no lock: a best-effort range check, as for one entry.
  if v_queued_accounts is not null and exists (
    select 1
    from (select distinct p_workspace_ids[l.entry] as workspace_id, l.account_id, l.currency
          from unnest(p_line_entries, p_account_ids, p_currencies) as l(entry, account_id, currency)
          where l.entry = any(v_written) and l.account_id = any(v_queued_accounts)) k
    where abs(coalesce((select b.own_balance from ledger_account_balances b
                        where b.workspace_id = k.workspace_id and b.account_id = k.account_id and b.currency = k.currency), 0)
              + coalesce((select sum(q.amount) from ledger_balance_queue q
                          where q.workspace_id = k.workspace_id and q.account_id = k.account_id and q.currency = k.currency
                            and not q.balance_applied), 0)) > int96_max()
  ) then
    raise exception using errcode = 'TL002', message = 'balance_out_of_range';
  end if;

  if v_lock_accounts is not null then
    -- Rows created only to be locked (for refused entries, or bounded pairs no line moved): gone.
    perform remove_unused_balance_rows(v_lock_workspaces, v_lock_accounts, v_lock_currencies);
  end if;
  if jsonb_array_length(p_new_accounts) > 0 then
    perform remove_unneeded_accounts(p_new_accounts,
      array(select a->>'path' from jsonb_array_elements(p_new_accounts) a where (a->>'entry')::integer = any(v_written)));
  end if;

  return query
    select o::integer, p_entry_ids[o], p_request_hashes[o], false, v_created[array_position(v_claimed, o::integer)],
           v_positions[array_position(v_claimed, o::integer)], null::integer, o = any(v_remapped)
    from unnest(v_written) o
    union all
    select r.o, null, null, null, null, null, r.failed, false
    from unnest(v_refused, v_failed) as r(o, failed)
    union all
    select o::integer, last.id, last.request_hash, true, last.created, last.reversal_position, null::integer, false
    from generate_subscripts(p_entry_ids, 1) o
    cross join lateral ik_holder(p_workspace_ids[o], p_ledger_ids[o], p_iks[o]) last
    where not o = any(v_claimed);
end
$$;
