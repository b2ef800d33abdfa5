-- Posting: one entry in one statement (post_ledger_entry), the wrapper that answers a failed
-- condition as a row (post_ledger_entry_or_refuse), and the group commit of entries that arrived
-- together (post_ledger_entries). Balances are applied by apply_balance_deltas (balances.sql).

-- True when the balance meets {eq, gte, lte} (absent bounds hold).
create or replace function condition_holds(p_balance numeric, p_condition jsonb) returns boolean
language sql immutable as $$
  select p_condition is null or jsonb_typeof(p_condition) = 'null' or (
    (p_condition->>'eq' is null or p_balance = (p_condition->>'eq')::numeric) and
    (p_condition->>'gte' is null or p_balance >= (p_condition->>'gte')::numeric) and
    (p_condition->>'lte' is null or p_balance <= (p_condition->>'lte')::numeric))
$$;

-- Before a posting checks total-balance conditions, it serialises with every other such posting
-- in the same top-level tree (an advisory lock, in key order) and locks the balance rows of the
-- conditioned subtrees together with its own lines' rows in the global (account, currency)
-- order. The totals it then reads cannot move until it commits, and no lock is taken out of order.
create or replace function lock_for_total_conditions(p_workspace_id text, p_ledger_id text, p_conditions jsonb,
                                          p_account_ids text[], p_currencies text[]) returns void
language plpgsql as $$
declare
  v_key bigint;
begin
  for v_key in
    select distinct hashtextextended(p_workspace_id || '|' || p_ledger_id || '|' || split_part(a.path, '/', 1), 0) as key
    from jsonb_array_elements(p_conditions) c
    join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = c.value->>'accountId'
    where c.value ? 'totalPrecondition' or c.value ? 'totalPostcondition'
    order by key
  loop
    perform pg_advisory_xact_lock(v_key);
  end loop;

  insert into ledger_account_balances (workspace_id, account_id, currency)
  select p_workspace_id, t.account_id, t.currency from unnest(p_account_ids, p_currencies) as t(account_id, currency)
  order by t.account_id, t.currency
  on conflict do nothing;

  perform 1 from ledger_account_balances b
  where b.workspace_id = p_workspace_id and (
    (b.account_id, b.currency) in (select * from unnest(p_account_ids, p_currencies))
    or (b.account_id, b.currency) in (
      select a.id, c.value->>'currency'
      from jsonb_array_elements(p_conditions) c
      join ledger_accounts root on root.workspace_id = p_workspace_id and root.id = c.value->>'accountId'
      join ledger_accounts a on a.workspace_id = p_workspace_id and a.ledger_id = p_ledger_id
        and (a.id = root.id or a.path like like_prefix(root.path) || '/%')
      where c.value ? 'totalPrecondition' or c.value ? 'totalPostcondition'))
  order by b.account_id, b.currency
  for update;
end
$$;

-- Posts one entry in one statement (one round trip): records the ik (a repost continues a chain
-- ended by a reversal), writes the lines, applies the balance deltas (balance rows locked in
-- account and currency order, so entries touching the same accounts in any order never
-- deadlock), and checks the conditions on own balances (before and after) and on total
-- balances. A replayed ik changes nothing and names the entry that holds it. A failed condition
-- raises entry_condition_failed (SQLSTATE TL001) with the condition's index as its detail.
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
        raise exception using errcode = 'TL001', message = 'entry_condition_failed', detail = v_condition->>'index';
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
        raise exception using errcode = 'TL001', message = 'entry_condition_failed', detail = v_condition->>'index';
      end if;
    end if;
  end loop;

  return query select p_entry_id, p_request_hash, false, v_created, coalesce(v_last_position + 1, 1);
end
$$;

-- Group commit: several entries are posted in one transaction, so a failing condition must
-- refuse only its own entry. This wrapper runs the posting in a subtransaction and answers the
-- failed condition's index (TL001's detail) as a row instead of raising; any other error still raises.
create or replace function post_ledger_entry_or_refuse(
  p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text,
  p_type text, p_type_version integer, p_parameters jsonb,
  p_posted timestamptz, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb,
  p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[],
  p_line_tags jsonb
) returns table (posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamptz, posted_position integer,
                 failed_condition integer)
language plpgsql as $$
declare
  v_detail text;
begin
  return query
    select p.posted_entry_id, p.posted_request_hash, p.replayed, p.posted_created, p.posted_position, null::integer
    from post_ledger_entry(p_workspace_id, p_ledger_id, p_entry_id, p_ik, p_request_hash, p_type, p_type_version, p_parameters,
                           p_posted, p_description, p_tags, p_groups, p_conditions,
                           p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_descriptions, p_line_tags) p;
exception when sqlstate 'TL001' then
  get stacked diagnostics v_detail = pg_exception_detail;
  return query select null::text, null::text, false, null::timestamptz, null::integer, v_detail::integer;
end
$$;

-- A JSON array of strings (or nulls) as text[], in order.
create or replace function jsonb_text_array(p_array jsonb) returns text[]
language sql immutable as $$
  select coalesce(array_agg(t.value order by t.ordinality), '{}') from jsonb_array_elements_text(p_array) with ordinality as t
$$;

-- Group commit: the entries that arrived together, posted by one statement (one round trip, one
-- commit). The balance rows any of them updates under a lock (p_lock_*: strong or bounded
-- accounts) are created and locked first, in one global order, so groups of different processes
-- never deadlock; then each entry is posted in order as if alone, a failed condition refusing
-- only its own entry. Answers one row per entry, by its 1-based ordinal in p_entries.
create or replace function post_ledger_entries(p_entries jsonb, p_lock_workspace_ids text[], p_lock_account_ids text[],
                                               p_lock_currencies text[])
returns table (ordinal integer, posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamptz,
               posted_position integer, failed_condition integer)
language plpgsql as $$
#variable_conflict use_column
declare
  v_entry jsonb;
  v_ordinal bigint;
begin
  insert into ledger_account_balances (workspace_id, account_id, currency)
  select t.workspace_id, t.account_id, t.currency
  from unnest(p_lock_workspace_ids, p_lock_account_ids, p_lock_currencies) as t(workspace_id, account_id, currency)
  order by t.account_id, t.currency
  on conflict do nothing;
  perform 1 from ledger_account_balances b
  join unnest(p_lock_workspace_ids, p_lock_account_ids, p_lock_currencies) as t(workspace_id, account_id, currency)
    on b.workspace_id = t.workspace_id and b.account_id = t.account_id and b.currency = t.currency
  order by b.account_id, b.currency
  for update of b;

  for v_entry, v_ordinal in select e.value, e.ordinality from jsonb_array_elements(p_entries) with ordinality as e loop
    return query
      select v_ordinal::integer, p.posted_entry_id, p.posted_request_hash, p.replayed, p.posted_created, p.posted_position,
             p.failed_condition
      from post_ledger_entry_or_refuse(
        v_entry->>'workspaceId', v_entry->>'ledgerId', v_entry->>'entryId', v_entry->>'ik', v_entry->>'requestHash',
        v_entry->>'type', (v_entry->>'typeVersion')::integer, nullif(v_entry->'parameters', 'null'::jsonb),
        (v_entry->>'posted')::timestamptz, v_entry->>'description', v_entry->'tags', v_entry->'groups', v_entry->'conditions',
        jsonb_text_array(v_entry->'lineIds'),
        jsonb_text_array(v_entry->'accountIds'),
        jsonb_text_array(v_entry->'currencies'),
        jsonb_text_array(v_entry->'amounts')::numeric[],
        jsonb_text_array(v_entry->'keys'),
        jsonb_text_array(v_entry->'descriptions'),
        v_entry->'lineTags') p;
  end loop;
end
$$;
