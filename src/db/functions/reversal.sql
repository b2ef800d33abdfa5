-- Reversal.

-- Reverses an entry in one statement: the new entry shares the ik (next position), posted time,
-- type, tags and groups, and negates every line; balances move back through
-- apply_balance_deltas (balances.sql) at the original posted time. Reversing an entry already
-- reversed, or a reversal, changes nothing and names the existing pair.
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
