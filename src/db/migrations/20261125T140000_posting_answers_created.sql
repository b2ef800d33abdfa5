-- The posting function also answers the entry's creation time, so a fresh posting is answered
-- from what the server already knows, without reading the entry and its lines back.
drop function post_ledger_entry(text, text, text, text, text, text, integer, jsonb, timestamptz, text, jsonb, jsonb, jsonb,
                                text[], text[], text[], numeric[], text[], text[]);

-- Posts one entry in one statement (one round trip): records the ik (a repost continues a chain
-- ended by a reversal), adds the lines to the balances (rows locked in account and currency
-- order, so entries touching the same accounts in any order never deadlock), checks the
-- conditions against the balances before and after, and appends the lines. A replayed ik
-- changes nothing and names the entry that holds it.
create function post_ledger_entry(
  p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text,
  p_type text, p_type_version integer, p_parameters jsonb,
  p_posted timestamptz, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb,
  p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[]
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
begin
  -- The ik's chain: nothing yet (position 1), ended by a reversal (a repost takes the next
  -- position), or holding a live entry (a replay, which changes nothing).
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

  return query select p_entry_id, p_request_hash, false, v_created, coalesce(v_last_position + 1, 1);
end
$$;
