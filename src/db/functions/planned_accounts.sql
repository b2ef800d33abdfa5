-- Template instances an entry names before their first use are created by the posting that
-- needs them, in its own transaction and without a ledger-wide lock: every posting inserts
-- them in one order (depth, then path) with `on conflict do nothing`, so a concurrent creator
-- of the same path is waited for (then its row is used) and never deadlocked against.

-- p_accounts: a jsonb array of planned rows (ledger_accounts' columns in camelCase, as the
-- server plans them); several may plan one path. A parent is found by its path, so a planned
-- parent that lost its race to an existing row is never referenced. Answers each planned id
-- with the id of the account that now holds its path. Raises account_ik_taken (TL005) when a
-- path cannot be created because another account holds its ik (ik = path for chart accounts).
create or replace function create_planned_accounts(p_accounts jsonb)
returns table (planned_id text, account_id text)
language plpgsql as $$
#variable_conflict use_column
declare
  v_depth smallint;
  v_missing text;
begin
  for v_depth in
    select distinct (a->>'depth')::smallint from jsonb_array_elements(p_accounts) a order by 1
  loop
    -- The first plan of a path (in array order: the group's arrival order) is the one written.
    with planned as (
      select a.n, a.value->>'workspaceId' as workspace_id, a.value->>'ledgerId' as ledger_id, a.value->>'path' as path, a.value
      from jsonb_array_elements(p_accounts) with ordinality as a(value, n)
      where (a.value->>'depth')::smallint = v_depth
    )
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, parent_id, depth, name, type, currency_mode,
                                 currency_code, consistency, linked_account_id, request_hash)
    select distinct on (p.workspace_id, p.ledger_id, p.path)
           p.workspace_id, p.ledger_id, p.value->>'id', p.value->>'ik', p.path,
           (select x.id from ledger_accounts x
            where x.workspace_id = p.workspace_id and x.ledger_id = p.ledger_id
              and x.path = regexp_replace(p.path, '/[^/]*$', '')),
           v_depth, p.value->>'name', p.value->>'type', p.value->>'currencyMode', p.value->>'currencyCode',
           p.value->'consistency', p.value->>'linkedAccountId', p.value->>'requestHash'
    from planned p
    order by p.workspace_id, p.ledger_id, p.path, p.n
    on conflict do nothing;
  end loop;

  select a->>'path' into v_missing
  from jsonb_array_elements(p_accounts) a
  where not exists (select 1 from ledger_accounts x
                    where x.workspace_id = a->>'workspaceId' and x.ledger_id = a->>'ledgerId' and x.path = a->>'path')
  limit 1;
  if v_missing is not null then
    raise exception using errcode = 'TL005', message = 'account_ik_taken', detail = v_missing;
  end if;

  -- One probe per planned path, fenced (lateral, offset 0): as a join, a ledger grown since its
  -- statistics were taken was scanned whole (6 ms a posting at a few thousand accounts).
  return query
    select a->>'id', x.id
    from jsonb_array_elements(p_accounts) a
    cross join lateral (select x.id from ledger_accounts x
                        where x.workspace_id = a->>'workspaceId' and x.ledger_id = a->>'ledgerId' and x.path = a->>'path'
                        offset 0) x;
end
$$;

-- Removes the accounts p_accounts planned that this transaction created but no written entry
-- needs (their entries were refused or replayed): a refused entry leaves no account behind.
-- p_kept_paths are the paths the written entries planned. Balance rows created only to be
-- locked must be gone first (remove_unused_balance_rows). No other transaction saw these
-- accounts, so their ledger keeps its posting revision (tally.removing_unseen_accounts).
create or replace function remove_unneeded_accounts(p_accounts jsonb, p_kept_paths text[]) returns void
language sql as $$
  select set_config('tally.removing_unseen_accounts', 'on', true);
  delete from ledger_accounts x
  using jsonb_array_elements(p_accounts) a
  where x.workspace_id = a->>'workspaceId' and x.ledger_id = a->>'ledgerId' and x.path = a->>'path'
    and x.xmin = xid(pg_current_xact_id()) and not x.path = any(p_kept_paths);
  select set_config('tally.removing_unseen_accounts', 'off', true);
$$;
