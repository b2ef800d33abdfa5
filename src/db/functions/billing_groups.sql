-- Group commit of billing writes: several calls of one write in one statement and one commit,
-- each answered in its row as it would be alone (a refusal as its SQLSTATE and detail).

-- Syncs: each call of sync_transaction runs in its own subtransaction (an exception block), so a
-- call that raises undoes only its own writes; the others write as they would alone, in the
-- order given. The server keeps a group well under 64 calls, the subtransactions a backend
-- tracks before its snapshots overflow.

create or replace function sync_transactions(p_calls jsonb)
returns table (n integer, outcome text, tx_posted timestamptz, tx_created timestamptz, account jsonb, users jsonb,
               error_code text, error_detail text)
language plpgsql as $$
declare
  v_call jsonb;
begin
  for v_call, n in select c, i from jsonb_array_elements(p_calls) with ordinality as t(c, i) loop
    begin
      select s.outcome, s.tx_posted, s.tx_created, s.account, s.users
      into outcome, tx_posted, tx_created, account, users
      from sync_transaction(v_call->>'workspace_id', v_call->'transaction', v_call->'account', v_call->'allocations') s;
      error_code := null; error_detail := null;
    exception when others then
      get stacked diagnostics error_code = returned_sqlstate, error_detail = pg_exception_detail;
      outcome := null; tx_posted := null; tx_created := null; account := null; users := null;
    end;
    return next;
  end loop;
end
$$;

-- Unlike the syncs, invoice creates are written set-based: a call in its own subtransaction ran
-- a dozen statements (one per step of create_invoice), whose start-up cost more than the rows
-- they wrote. Here each step is one statement over every call of the group, and the items are
-- read out of the JSON once. A call refused by a check is answered as create_invoice raises it
-- (error_code, error_detail) and its claim withdrawn before anything else is written, so it
-- leaves nothing, as alone. Steps, in create_invoice's order:
-- 1. claim every invoice id with one insert, in key order; a taken id answers 'taken';
-- 2. resolve the claimed calls' products (a code match wins over an id match) and the user ids
--    their items name; an unknown product refuses a call (TL003), else an unknown user id (TL004);
-- 3. withdraw the refused calls' claims, create the users first named by an external id (the
--    earliest item's planned id wins), and insert the line items of the calls still standing.
create or replace function create_invoices(p_calls jsonb)
returns table (n integer, outcome text, invoice_created timestamptz, users jsonb, products jsonb,
               error_code text, error_detail text)
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  v_claimed integer[];
  v_created timestamptz[];
  -- Per item of a claimed call, in (call, position) order.
  i_calls integer[];
  i_workspaces text[];
  i_invoices text[];
  i_ids text[];
  i_positions integer[];
  i_types text[];
  i_product_refs text[];
  i_user_ids text[];
  i_external_ids text[];
  i_new_user_ids text[];
  i_descriptions text[];
  i_currencies text[];
  i_unit_prices numeric[];
  i_quantities integer[];
  i_amounts numeric[];
  i_tags jsonb[];
  i_product_ids text[];
  i_product_codes text[];
  i_user_known boolean[];
  i_resolved_user_ids text[];
  v_refused integer[];
  v_codes text[];
  v_details text[];
  v_live integer[];
begin
  -- 1. Claims.
  with call as (
    select c.n::integer as n, c.value as v from jsonb_array_elements(p_calls) with ordinality as c(value, n)
  ), claim as (
    insert into invoices as i (workspace_id, id, tags, request_hash)
    select c.v->>'workspace_id', c.v->>'invoice_id', c.v->'tags', c.v->>'request_hash' from call c
    order by c.v->>'workspace_id', c.v->>'invoice_id'
    on conflict (workspace_id, id) do nothing
    returning i.workspace_id, i.id, i.created
  )
  select coalesce(array_agg(c.n order by c.n), '{}'), coalesce(array_agg(k.created order by c.n), '{}')
  into v_claimed, v_created
  from claim k join call c on c.v->>'workspace_id' = k.workspace_id and c.v->>'invoice_id' = k.id;

  -- 2. The claimed calls' items, their products and the users they name by id, each distinct
  -- reference probed once (fenced: see billing_users.sql).
  with item as (
    select c.n::integer as n, c.value->>'workspace_id' as workspace_id, c.value->>'invoice_id' as invoice_id, t.*
    from jsonb_array_elements(p_calls) with ordinality as c(value, n)
    cross join lateral jsonb_to_recordset(c.value->'items') as t(id text, position integer, type text, product_ref text,
      user_id text, user_external_id text, new_user_id text, description text, currency text, unit_price numeric,
      quantity integer, amount numeric, tags jsonb)
    where c.n = any(v_claimed)
  ), product as (
    select r.workspace_id, r.ref, p.id, p.code
    from (select distinct t.workspace_id, t.product_ref as ref from item t) r
    left join lateral (
      select pr.id, pr.code from products pr where pr.workspace_id = r.workspace_id and (pr.code = r.ref or pr.id = r.ref)
      order by (pr.code = r.ref) desc limit 1
    ) p on true
  ), named_user as (
    select r.workspace_id, r.id, u.external_id
    from (select distinct t.workspace_id, t.user_id as id from item t where t.user_id is not null) r
    cross join lateral (select u.external_id from billing_users u where u.workspace_id = r.workspace_id and u.id = r.id offset 0) u
  ), resolved as (
    select t.*, p.id as product_id, p.code as product_code, u.external_id as known_external_id,
           t.user_id is null or u.id is not null as user_known
    from item t
    join product p on p.workspace_id = t.workspace_id and p.ref = t.product_ref
    left join named_user u on u.workspace_id = t.workspace_id and u.id = t.user_id
    order by t.n, t.position
  )
  select array_agg(n), array_agg(workspace_id), array_agg(invoice_id), array_agg(id), array_agg(position), array_agg(type),
         array_agg(product_ref), array_agg(user_id), array_agg(coalesce(known_external_id, user_external_id)),
         array_agg(new_user_id), array_agg(description), array_agg(currency), array_agg(unit_price), array_agg(quantity),
         array_agg(amount), array_agg(tags), array_agg(product_id), array_agg(product_code), array_agg(user_known)
  into i_calls, i_workspaces, i_invoices, i_ids, i_positions, i_types, i_product_refs, i_user_ids, i_external_ids,
       i_new_user_ids, i_descriptions, i_currencies, i_unit_prices, i_quantities, i_amounts, i_tags, i_product_ids,
       i_product_codes, i_user_known
  from resolved;

  select coalesce(array_agg(r.n order by r.n), '{}'), coalesce(array_agg(r.code order by r.n), '{}'),
         coalesce(array_agg(r.detail order by r.n), '{}')
  into v_refused, v_codes, v_details
  from (
    select m.n, case when bool_or(m.product_id is null) then 'TL003' else 'TL004' end as code,
           case when bool_or(m.product_id is null)
                then jsonb_agg(m.position - 1 order by m.position) filter (where m.product_id is null)
                else jsonb_agg(m.position - 1 order by m.position) filter (where not m.known) end::text as detail
    from unnest(i_calls, i_positions, i_product_ids, i_user_known) as m(n, position, product_id, known)
    group by m.n
    having bool_or(m.product_id is null) or not bool_and(m.known)
  ) r;

  -- 3. Writes.
  if cardinality(v_refused) > 0 then
    delete from invoices x using unnest(v_refused) o
    where x.workspace_id = p_calls->(o - 1)->>'workspace_id' and x.id = p_calls->(o - 1)->>'invoice_id';
  end if;
  v_live := array(select o from unnest(v_claimed) o where not o = any(v_refused) order by o);

  insert into billing_users (workspace_id, id, external_id)
  select distinct on (m.workspace_id, m.external_id) m.workspace_id, m.new_user_id, m.external_id
  from unnest(i_calls, i_workspaces, i_user_ids, i_external_ids, i_new_user_ids) with ordinality
         as m(n, workspace_id, user_id, external_id, new_user_id, k)
  where m.user_id is null and m.n = any(v_live)
  order by m.workspace_id, m.external_id, m.k
  on conflict (workspace_id, external_id) do nothing;

  -- Items naming their user by external id learn its id.
  with external as (
    select r.workspace_id, r.external_id, u.id
    from (select distinct m.workspace_id, m.external_id
          from unnest(i_calls, i_workspaces, i_user_ids, i_external_ids) as m(n, workspace_id, user_id, external_id)
          where m.user_id is null and m.n = any(v_live)) r
    cross join lateral (select u.id from billing_users u
                        where u.workspace_id = r.workspace_id and u.external_id = r.external_id offset 0) u
  )
  select array_agg(coalesce(m.user_id, x.id) order by m.k) into i_resolved_user_ids
  from unnest(i_workspaces, i_user_ids, i_external_ids) with ordinality as m(workspace_id, user_id, external_id, k)
  left join external x on m.user_id is null and x.workspace_id = m.workspace_id and x.external_id = m.external_id;

  insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency,
                                  unit_price, quantity, amount, tags)
  select m.workspace_id, m.invoice_id, m.id, m.position, m.type, m.product_id, m.user_id, m.description, m.currency,
         m.unit_price, m.quantity, m.amount, m.tags
  from unnest(i_calls, i_workspaces, i_invoices, i_ids, i_positions, i_types, i_product_ids, i_resolved_user_ids,
              i_descriptions, i_currencies, i_unit_prices, i_quantities, i_amounts, i_tags)
         as m(n, workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency, unit_price,
              quantity, amount, tags)
  where m.n = any(v_live);

  return query
    select o, 'created'::text, v_created[array_position(v_claimed, o)], coalesce(a.users, '{}'), coalesce(a.products, '{}'),
           null::text, null::text
    from unnest(v_live) o
    left join (select m.n,
                 jsonb_object_agg(case when m.user_id is not null then 'id:' || m.user_id else 'ext:' || m.external_id end,
                                  jsonb_build_array(m.resolved_user_id, m.external_id)) as users,
                 jsonb_object_agg(m.ref, jsonb_build_array(m.product_id, m.product_code)) as products
          from unnest(i_calls, i_user_ids, i_resolved_user_ids, i_external_ids, i_product_refs, i_product_ids,
                      i_product_codes) as m(n, user_id, resolved_user_id, external_id, ref, product_id, product_code)
          where m.n = any(v_live)
          group by m.n) a on a.n = o
    union all
    select r.n, null, null, null, null, r.code, r.detail from unnest(v_refused, v_codes, v_details) as r(n, code, detail)
    union all
    select o::integer, 'taken', null, null, null, null, null
    from generate_series(1, jsonb_array_length(p_calls)) o where not o = any(v_claimed)
    order by 1;
end
$$;
