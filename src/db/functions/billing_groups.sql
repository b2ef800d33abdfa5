-- Group commit of billing writes: several calls of one write in one statement and one commit,
-- each answered in its row as it would be alone (a refusal as its SQLSTATE and detail).

-- Syncs, set-based: one statement per step for every call of the group, as sync_transaction
-- takes them for one call. The checks read first and decide each call in sync_transaction's
-- order: 'taken' (its external id is held), 'follow' (a payment flow exists on an invoice it
-- pays), then the refusals unknown_account (TL006, detail: the external id the account has, or
-- empty), unknown_invoice (TL007) and unknown_user (TL004) with the failing allocations' indexes,
-- over_allocated (TL008). Only the calls that pass write: accounts and users first named by
-- an external id (the earliest call's planned id wins), the transactions in key order, their
-- allocations. A concurrent sync that took an external id since makes the insert fail the
-- whole statement: the server then syncs each call alone, as external_id_taken answers it.
create or replace function sync_transactions(p_calls jsonb)
returns table (n integer, outcome text, tx_posted timestamptz, tx_created timestamptz, account jsonb, users jsonb,
               error_code text, error_detail text)
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  -- Per call, in call order: its verdict ('taken', 'follow', a refusal's SQLSTATE, or null to write).
  c_verdicts text[];
  c_details text[];
  v_live integer[];
  v_rows integer;
  -- Per allocation (its 0-based index in the call's allocations).
  a_calls integer[];
  a_indexes integer[];
  a_workspaces text[];
  a_ids text[];
  a_positions integer[];
  a_invoices text[];
  a_user_ids text[];
  a_external_ids text[];
  a_new_user_ids text[];
  a_types text[];
  a_amounts numeric[];
  a_invoice_found boolean[];
  a_user_known boolean[];
  a_follows boolean[];
  a_resolved_user_ids text[];
begin
  -- 1. Allocations, with whether each names an invoice, a user id that exist and an invoice a
  -- payment flow is on; each distinct key probed once (fenced: see billing_users.sql).
  with allocation as (
    select c.n::integer as n, c.value->>'workspace_id' as workspace_id, t.*
    from jsonb_array_elements(p_calls) with ordinality as c(value, n)
    cross join lateral rows from (jsonb_to_recordset(c.value->'allocations') as (id text, position integer, invoice_id text,
      user_id text, user_external_id text, new_user_id text, type text, amount numeric)) with ordinality
      as t(id, position, invoice_id, user_id, user_external_id, new_user_id, type, amount, k)
  ), invoice as (
    -- Probes, not exists(): as a subplan PostgreSQL may hash the whole table once per statement.
    -- A keyed map, read back per allocation, as in ensure_named_users (billing_users.sql).
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.id,
                                     jsonb_build_array(i.id is not null, f.id is not null)), '{}') as by_id
    from (select distinct a.workspace_id, a.invoice_id as id from allocation a) r
    left join lateral (select i.id from invoices i where i.workspace_id = r.workspace_id and i.id = r.id limit 1) i on true
    left join lateral (select f.id from payment_flows f where f.workspace_id = r.workspace_id and f.invoice_id = r.id limit 1) f
      on true
  ), named_user as (
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.id, u.external_id), '{}') as by_id
    from (select distinct a.workspace_id, a.user_id as id from allocation a where a.user_id is not null) r
    cross join lateral (select u.external_id from billing_users u where u.workspace_id = r.workspace_id and u.id = r.id offset 0) u
  )
  -- One pass, so the arrays stay aligned allocation by allocation.
  select array_agg(a.n), array_agg((a.k - 1)::integer), array_agg(a.workspace_id), array_agg(a.id), array_agg(a.position),
         array_agg(a.invoice_id), array_agg(a.user_id),
         array_agg(coalesce(u.by_id ->> (a.workspace_id || E'\n' || a.user_id), a.user_external_id)),
         array_agg(a.new_user_id), array_agg(a.type), array_agg(a.amount),
         array_agg((i.by_id -> (a.workspace_id || E'\n' || a.invoice_id) ->> 0)::boolean),
         array_agg(a.user_id is null or u.by_id ? (a.workspace_id || E'\n' || a.user_id)),
         array_agg((i.by_id -> (a.workspace_id || E'\n' || a.invoice_id) ->> 1)::boolean)
  into a_calls, a_indexes, a_workspaces, a_ids, a_positions, a_invoices, a_user_ids, a_external_ids, a_new_user_ids,
       a_types, a_amounts, a_invoice_found, a_user_known, a_follows
  from allocation a cross join invoice i cross join named_user u;

  -- 2. Each call's verdict.
  with call as (
    select c.n::integer as n, c.value->>'workspace_id' as workspace_id, c.value->'transaction' as tx, c.value->'account' as account
    from jsonb_array_elements(p_calls) with ordinality as c(value, n)
  ), allocated as (
    select m.n, bool_or(m.follows) as follows,
           jsonb_agg(m.k order by m.k) filter (where not m.found) as missing_invoices,
           jsonb_agg(m.k order by m.k) filter (where not m.known) as missing_users,
           sum(m.amount) as total
    from unnest(a_calls, a_indexes, a_invoice_found, a_user_known, a_follows, a_amounts) as m(n, k, found, known, follows, amount)
    group by m.n
  ), judged as (
    select c.n,
           case when h.id is not null then 'taken'
                when coalesce(a.follows, false) then 'follow'
                when c.account ? 'id' and (x.id is null or (c.account ? 'external_id' and x.external_id <> c.account->>'external_id'))
                  then 'TL006'
                when a.missing_invoices is not null then 'TL007'
                when a.missing_users is not null then 'TL004'
                when coalesce(a.total, 0) > abs((c.tx->>'amount')::numeric) then 'TL008'
           end as verdict,
           x.external_id as account_external_id, a.missing_invoices, a.missing_users
    from call c
    left join lateral (select t.id from billing_transactions t
                       where t.workspace_id = c.workspace_id and t.external_id = c.tx->>'external_id' limit 1) h on true
    left join allocated a on a.n = c.n
    left join lateral (select x.id, x.external_id from external_accounts x
                       where c.account ? 'id' and x.workspace_id = c.workspace_id and x.id = c.account->>'id' limit 1) x on true
  )
  select array_agg(j.verdict order by j.n),
         array_agg(case j.verdict when 'TL006' then coalesce(j.account_external_id, '') when 'TL007' then j.missing_invoices::text
                                  when 'TL004' then j.missing_users::text when 'TL008' then '' end order by j.n)
  into c_verdicts, c_details
  from judged j;
  v_live := array(select o::integer from unnest(c_verdicts) with ordinality as v(verdict, o) where v.verdict is null order by o);

  -- 3. Writes of the calls that pass.
  insert into external_accounts (workspace_id, id, external_id)
  select distinct on (p_calls->(o - 1)->>'workspace_id', p_calls->(o - 1)->'account'->>'external_id')
         p_calls->(o - 1)->>'workspace_id', p_calls->(o - 1)->'account'->>'new_id', p_calls->(o - 1)->'account'->>'external_id'
  from unnest(v_live) o
  where not p_calls->(o - 1)->'account' ? 'id'
  order by p_calls->(o - 1)->>'workspace_id', p_calls->(o - 1)->'account'->>'external_id', o
  on conflict (workspace_id, external_id) do nothing;

  a_resolved_user_ids := ensure_named_users(a_calls, a_indexes, a_workspaces, a_user_ids, a_external_ids,
                                            a_new_user_ids, v_live);

  return query
    with live as (
      select o as n, p_calls->(o - 1)->>'workspace_id' as workspace_id, p_calls->(o - 1)->'transaction' as tx,
             p_calls->(o - 1)->'account' as account
      from unnest(v_live) o
    ), bank as (
      -- By id or by external id, each branch probing its own unique index.
      select l.n, x.id, x.external_id from live l
      cross join lateral (select x.id, x.external_id from external_accounts x
                          where l.account ? 'id' and x.workspace_id = l.workspace_id and x.id = l.account->>'id'
                          union all
                          select x.id, x.external_id from external_accounts x
                          where not l.account ? 'id' and x.workspace_id = l.workspace_id
                            and x.external_id = l.account->>'external_id') x
    ), written as (
      insert into billing_transactions as t (workspace_id, id, external_id, account_id, amount, currency, posted, tags,
                                             allocated, request_hash)
      select l.workspace_id, l.tx->>'id', l.tx->>'external_id', b.id, (l.tx->>'amount')::numeric, l.tx->>'currency',
             (l.tx->>'posted')::timestamptz, l.tx->'tags', (l.tx->>'allocated')::numeric, l.tx->>'request_hash'
      -- An account gone since the checks leaves account_id null: the statement fails, each call goes alone.
      from live l left join bank b on b.n = l.n
      order by l.workspace_id, l.tx->>'external_id'
      returning t.workspace_id, t.id, t.posted, t.created
    ), allocated as (
      insert into allocations (workspace_id, id, transaction_id, position, invoice_id, user_id, type, amount)
      select m.workspace_id, m.id, p_calls->(m.n - 1)->'transaction'->>'id', m.position, m.invoice_id, m.user_id, m.type, m.amount
      from unnest(a_calls, a_workspaces, a_ids, a_positions, a_invoices, a_resolved_user_ids, a_types, a_amounts)
             as m(n, workspace_id, id, position, invoice_id, user_id, type, amount)
      where m.n = any(v_live)
    ), named as (
      select m.n,
             jsonb_object_agg(case when m.user_id is not null then 'id:' || m.user_id else 'ext:' || m.external_id end,
                              jsonb_build_array(m.resolved_user_id, m.external_id)) as users
      from unnest(a_calls, a_user_ids, a_resolved_user_ids, a_external_ids) as m(n, user_id, resolved_user_id, external_id)
      where m.n = any(v_live)
      group by m.n
    )
    select l.n, 'created'::text, w.posted, w.created, jsonb_build_array(b.id, b.external_id), coalesce(u.users, '{}'),
           null::text, null::text
    from live l
    join bank b on b.n = l.n
    join written w on w.workspace_id = l.workspace_id and w.id = l.tx->>'id'
    left join named u on u.n = l.n
    union all
    select v.o::integer, v.verdict, null, null, null, null, null, null
    from unnest(c_verdicts) with ordinality as v(verdict, o) where v.verdict in ('taken', 'follow')
    union all
    select v.o::integer, null, null, null, null, null, v.verdict, v.detail
    from unnest(c_verdicts, c_details) with ordinality as v(verdict, detail, o) where v.verdict like 'TL%'
    order by 1;
  -- Answered positionally: a group short of a row fails whole here, before its commit.
  get diagnostics v_rows = row_count;
  assert v_rows = jsonb_array_length(p_calls), format('%s rows answered %s calls', v_rows, jsonb_array_length(p_calls));
end
$$;

-- Invoice creates, set-based as well: a call in its own subtransaction ran a dozen statements
-- (one per step of create_invoice), whose start-up cost more than the rows they wrote. Here each
-- step is one statement over every call of the group, and the items are read out of the JSON once. A call refused by a check is answered as create_invoice raises it
-- (error_code, error_detail) and its claim withdrawn before anything else is written, so it
-- leaves nothing, as alone. Steps, in create_invoice's order:
-- 1. claim every invoice id with one insert, in key order; a taken id answers 'taken';
-- 2. resolve the claimed calls' products (a code match wins over an id match) and the user ids
--    their items name; an unknown product refuses a call (TL003), else an unknown user id (TL004);
-- 3. withdraw the refused calls' claims, create the users first named by an external id (the
--    earliest item's planned id wins), and insert the line items of the calls still standing.
create or replace function create_invoices(p_calls jsonb)
returns table (n integer, outcome text, invoice_created timestamptz, user_ids text[], user_external_ids text[],
               product_ids text[], product_codes text[], error_code text, error_detail text)
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  v_claimed integer[];
  v_created timestamptz[];
  -- Per item of a claimed call (its 0-based index in the call's items).
  i_calls integer[];
  i_indexes integer[];
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
  v_rows integer;
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
    cross join lateral rows from (jsonb_to_recordset(c.value->'items') as (id text, position integer, type text,
      product_ref text, user_id text, user_external_id text, new_user_id text, description text, currency text,
      unit_price numeric, quantity integer, amount numeric, tags jsonb)) with ordinality
      as t(id, position, type, product_ref, user_id, user_external_id, new_user_id, description, currency, unit_price,
           quantity, amount, tags, k)
    where c.n = any(v_claimed)
  ), product as (
    -- Keyed maps, read back per item, as in ensure_named_users (billing_users.sql).
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.ref, jsonb_build_array(p.id, p.code))
                      filter (where p.id is not null), '{}') as by_ref
    from (select distinct t.workspace_id, t.product_ref as ref from item t) r
    left join lateral (
      select pr.id, pr.code from products pr where pr.workspace_id = r.workspace_id and (pr.code = r.ref or pr.id = r.ref)
      order by (pr.code = r.ref) desc limit 1
    ) p on true
  ), named_user as (
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.id, u.external_id), '{}') as by_id
    from (select distinct t.workspace_id, t.user_id as id from item t where t.user_id is not null) r
    cross join lateral (select u.external_id from billing_users u where u.workspace_id = r.workspace_id and u.id = r.id offset 0) u
  )
  -- One pass, so the arrays stay aligned item by item.
  select array_agg(t.n), array_agg((t.k - 1)::integer), array_agg(t.workspace_id), array_agg(t.invoice_id), array_agg(t.id),
         array_agg(t.position), array_agg(t.type), array_agg(t.product_ref), array_agg(t.user_id),
         array_agg(coalesce(u.by_id ->> (t.workspace_id || E'\n' || t.user_id), t.user_external_id)),
         array_agg(t.new_user_id), array_agg(t.description), array_agg(t.currency), array_agg(t.unit_price),
         array_agg(t.quantity), array_agg(t.amount), array_agg(t.tags),
         array_agg(p.by_ref -> (t.workspace_id || E'\n' || t.product_ref) ->> 0),
         array_agg(p.by_ref -> (t.workspace_id || E'\n' || t.product_ref) ->> 1),
         array_agg(t.user_id is null or u.by_id ? (t.workspace_id || E'\n' || t.user_id))
  into i_calls, i_indexes, i_workspaces, i_invoices, i_ids, i_positions, i_types, i_product_refs, i_user_ids,
       i_external_ids, i_new_user_ids, i_descriptions, i_currencies, i_unit_prices, i_quantities, i_amounts, i_tags,
       i_product_ids, i_product_codes, i_user_known
  from item t cross join product p cross join named_user u;

  select coalesce(array_agg(r.n order by r.n), '{}'), coalesce(array_agg(r.code order by r.n), '{}'),
         coalesce(array_agg(r.detail order by r.n), '{}')
  into v_refused, v_codes, v_details
  from (
    select m.n, case when bool_or(m.product_id is null) then 'TL003' else 'TL004' end as code,
           case when bool_or(m.product_id is null)
                then jsonb_agg(m.k order by m.k) filter (where m.product_id is null)
                else jsonb_agg(m.k order by m.k) filter (where not m.known) end::text as detail
    from unnest(i_calls, i_indexes, i_product_ids, i_user_known) as m(n, k, product_id, known)
    group by m.n
    having bool_or(m.product_id is null) or not bool_and(m.known)
  ) r;

  -- 3. Writes.
  if cardinality(v_refused) > 0 then
    delete from invoices x using unnest(v_refused) o
    where x.workspace_id = p_calls->(o - 1)->>'workspace_id' and x.id = p_calls->(o - 1)->>'invoice_id';
  end if;
  v_live := array(select o from unnest(v_claimed) o where not o = any(v_refused) order by o);

  i_resolved_user_ids := ensure_named_users(i_calls, i_indexes, i_workspaces, i_user_ids, i_external_ids,
                                            i_new_user_ids, v_live);

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
    select o, 'created'::text, v_created[array_position(v_claimed, o)], r.user_ids, r.user_external_ids, r.product_ids,
           r.product_codes, null::text, null::text
    from unnest(v_live) o
    -- Each item's user and product, in the call's item order.
    cross join lateral (
      select array_agg(i_resolved_user_ids[p] order by i_indexes[p]) as user_ids,
             array_agg(i_external_ids[p] order by i_indexes[p]) as user_external_ids,
             array_agg(i_product_ids[p] order by i_indexes[p]) as product_ids,
             array_agg(i_product_codes[p] order by i_indexes[p]) as product_codes
      from unnest(array_positions(i_calls, o)) p
    ) r
    union all
    select r.n, null, null, null, null, null, null, r.code, r.detail from unnest(v_refused, v_codes, v_details) as r(n, code, detail)
    union all
    select o::integer, 'taken', null, null, null, null, null, null, null
    from generate_series(1, jsonb_array_length(p_calls)) o where not o = any(v_claimed)
    order by 1;
  -- Answered positionally: a group short of a row fails whole here, before its commit.
  get diagnostics v_rows = row_count;
  assert v_rows = jsonb_array_length(p_calls), format('%s rows answered %s calls', v_rows, jsonb_array_length(p_calls));
end
$$;
