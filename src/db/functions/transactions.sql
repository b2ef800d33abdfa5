-- Billing transactions.

-- Syncs a bank transaction with its allocations in one statement (one round trip, one commit),
-- answering in the order the contract does: an external id already held answers 'taken' and
-- writes nothing; so does 'follow' when a payment flow exists on an invoice paid (the server then
-- syncs in a transaction of its own that also moves those flows on). Then the account (by id, which
-- must exist and match the external id if one is given, or by external id, created on first use),
-- the invoices, the users given by id, and the total allocated. A refusal raises and the statement
-- writes nothing: unknown_account (TL006; detail: the external id the account has, or empty),
-- unknown_invoice (TL007) and unknown_user (TL004) with the failing allocations' indexes (0-based),
-- over_allocated (TL008); a concurrent sync that took the external id first raises
-- external_id_taken (TL009). Users given by external id are created on first use.
create or replace function sync_transaction(p_workspace_id text, p_transaction jsonb, p_account jsonb, p_allocations jsonb)
returns table (outcome text, tx_posted timestamptz, tx_created timestamptz, account jsonb, users jsonb)
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
declare
  -- The keys the statements below probe, read from the JSON once.
  v_external_id text := p_transaction->>'external_id';
  v_invoice_ids text[] := array(select a->>'invoice_id' from jsonb_array_elements(p_allocations) a);
  v_found text[];
  v_account_id text;
  v_account_external_id text;
  v_missing jsonb;
  v_users jsonb;
  v_posted timestamptz;
  v_created timestamptz;
begin
  if exists (select 1 from billing_transactions t where t.workspace_id = p_workspace_id and t.external_id = v_external_id) then
    return query select 'taken'::text, null::timestamptz, null::timestamptz, null::jsonb, null::jsonb;
    return;
  end if;
  if exists (select 1 from payment_flows f where f.workspace_id = p_workspace_id and f.invoice_id = any(v_invoice_ids)) then
    return query select 'follow'::text, null::timestamptz, null::timestamptz, null::jsonb, null::jsonb;
    return;
  end if;

  if p_account ? 'id' then
    select x.id, x.external_id into v_account_id, v_account_external_id
    from external_accounts x where x.workspace_id = p_workspace_id and x.id = p_account->>'id';
    if v_account_id is null or (p_account ? 'external_id' and v_account_external_id <> p_account->>'external_id') then
      raise exception using errcode = 'TL006', message = 'unknown_account', detail = coalesce(v_account_external_id, '');
    end if;
  else
    insert into external_accounts (workspace_id, id, external_id)
    values (p_workspace_id, p_account->>'new_id', p_account->>'external_id')
    on conflict (workspace_id, external_id) do nothing;
    select x.id, x.external_id into v_account_id, v_account_external_id
    from external_accounts x where x.workspace_id = p_workspace_id and x.external_id = p_account->>'external_id';
  end if;

  -- Existence by `= any(array)` probes the primary keys; a correlated `not exists` over the JSON
  -- elements (estimated at 100 rows) was planned as a hash anti-join over every invoice.
  select coalesce(array_agg(i.id), '{}') into v_found from invoices i
  where i.workspace_id = p_workspace_id and i.id = any(v_invoice_ids);
  select jsonb_agg(n - 1 order by n) into v_missing
  from unnest(v_invoice_ids) with ordinality as t(id, n) where not t.id = any(v_found);
  if v_missing is not null then
    raise exception using errcode = 'TL007', message = 'unknown_invoice', detail = v_missing::text;
  end if;
  perform require_billing_users(p_workspace_id, p_allocations);
  if (select coalesce(sum((a->>'amount')::numeric), 0) from jsonb_array_elements(p_allocations) a)
     > abs((p_transaction->>'amount')::numeric) then
    raise exception using errcode = 'TL008', message = 'over_allocated';
  end if;

  v_users := ensure_billing_users(p_workspace_id, p_allocations);

  insert into billing_transactions (workspace_id, id, external_id, account_id, amount, currency, posted, tags, allocated, request_hash)
  values (p_workspace_id, p_transaction->>'id', v_external_id, v_account_id, (p_transaction->>'amount')::numeric,
          p_transaction->>'currency', (p_transaction->>'posted')::timestamptz, p_transaction->'tags',
          (p_transaction->>'allocated')::numeric, p_transaction->>'request_hash')
  on conflict (workspace_id, external_id) do nothing
  returning billing_transactions.posted, billing_transactions.created into v_posted, v_created;
  if v_created is null then
    raise exception using errcode = 'TL009', message = 'external_id_taken';
  end if;
  insert into allocations (workspace_id, id, transaction_id, position, invoice_id, user_id, type, amount)
  select p_workspace_id, t.id, p_transaction->>'id', t.position, t.invoice_id,
         v_users->(case when t.user_id is not null then 'id:' || t.user_id else 'ext:' || t.user_external_id end)->>0, t.type, t.amount
  from jsonb_to_recordset(p_allocations) as t(id text, position integer, invoice_id text, user_id text, user_external_id text,
                                             type text, amount numeric);
  return query select 'created'::text, v_posted, v_created, jsonb_build_array(v_account_id, v_account_external_id), v_users;
end
$$;
