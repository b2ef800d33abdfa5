-- Invoices.

-- Creates an invoice in one statement (one round trip, one commit): claims the invoice id (a
-- taken id answers 'taken' and writes nothing), resolves each line item's product (by code,
-- else by id) and user (by id, which must exist, or by external id, created on first use with
-- the id planned by the first item naming it), and writes the line items. Answers each item's
-- user and product in item order. An unknown product or user id raises unknown_product
-- (SQLSTATE TL003) or unknown_user (TL004) with the failing item indexes (0-based) as its
-- detail, and the statement writes nothing.
create or replace function create_invoice(p_workspace_id text, p_invoice_id text, p_tags jsonb, p_request_hash text, p_items jsonb)
returns table (outcome text, invoice_created timestamptz, user_ids text[], user_external_ids text[], product_ids text[],
               product_codes text[])
language plpgsql as $$
declare
  v_created timestamptz;
  v_missing jsonb;
  v_products jsonb;
  v_users jsonb;
begin
  insert into invoices (workspace_id, id, tags, request_hash) values (p_workspace_id, p_invoice_id, p_tags, p_request_hash)
  on conflict (workspace_id, id) do nothing
  returning created into v_created;
  if v_created is null then
    return query select 'taken'::text, null::timestamptz, null::text[], null::text[], null::text[], null::text[];
    return;
  end if;

  -- Each product reference → [id, code]; a code match wins over an id match.
  select coalesce(jsonb_object_agg(r.ref, jsonb_build_array(p.id, p.code)) filter (where p.id is not null), '{}') into v_products
  from (select distinct i->>'product_ref' as ref from jsonb_array_elements(p_items) i) r
  left join lateral (
    select pr.id, pr.code from products pr where pr.workspace_id = p_workspace_id and (pr.code = r.ref or pr.id = r.ref)
    order by (pr.code = r.ref) desc limit 1
  ) p on true;
  select jsonb_agg(n - 1 order by n) into v_missing
  from jsonb_array_elements(p_items) with ordinality as t(i, n) where not v_products ? (i->>'product_ref');
  if v_missing is not null then
    raise exception using errcode = 'TL003', message = 'unknown_product', detail = v_missing::text;
  end if;

  perform require_billing_users(p_workspace_id, p_items);
  v_users := ensure_billing_users(p_workspace_id, p_items);

  insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency,
                                  unit_price, quantity, amount, tags)
  select p_workspace_id, p_invoice_id, t.id, t.position, t.type, v_products->t.product_ref->>0,
         v_users->(case when t.user_id is not null then 'id:' || t.user_id else 'ext:' || t.user_external_id end)->>0, t.description, t.currency, t.unit_price, t.quantity, t.amount, t.tags
  from jsonb_to_recordset(p_items) as t(id text, position integer, type text, product_ref text, user_id text, user_external_id text,
                                        description text, currency text, unit_price numeric, quantity integer, amount numeric, tags jsonb);
  return query
    select 'created'::text, v_created, array_agg(u->>0 order by t.n), array_agg(u->>1 order by t.n),
           array_agg(v_products->(t.i->>'product_ref')->>0 order by t.n), array_agg(v_products->(t.i->>'product_ref')->>1 order by t.n)
    from jsonb_array_elements(p_items) with ordinality as t(i, n)
    cross join lateral (select v_users->(case when t.i->>'user_id' is not null then 'id:' || (t.i->>'user_id')
                                               else 'ext:' || (t.i->>'user_external_id') end) as u) r;
end
$$;

-- Writes one invoice change whose content the server computed from version p_based_on, in one
-- statement: the invoice moves on to the next version only from p_based_on (a change committed
-- since raises version_conflict, SQLSTATE TL011, detail: the version it is at, or empty when the
-- invoice is gone), the version left behind goes to the history, then the line items change.
-- Answers the invoice row as it now is.
create or replace function change_invoice(p_workspace_id text, p_invoice_id text, p_based_on integer, p_tags jsonb,
                                          p_diff jsonb, p_snapshot jsonb, p_previous_diff jsonb, p_updates jsonb,
                                          p_deletes text[], p_creates jsonb)
returns setof invoices
language plpgsql as $$
declare
  v_row invoices;
  v_version text;
begin
  update invoices i set version = i.version + 1, tags = p_tags, diff = p_diff, modified = workspace_now(p_workspace_id)
  where i.workspace_id = p_workspace_id and i.id = p_invoice_id and i.version = p_based_on
  returning i.* into v_row;
  if v_row.id is null then
    select coalesce(max(i.version)::text, '') into v_version from invoices i
    where i.workspace_id = p_workspace_id and i.id = p_invoice_id;
    raise exception using errcode = 'TL011', message = 'version_conflict', detail = v_version;
  end if;
  insert into invoice_versions (workspace_id, invoice_id, version, snapshot, diff)
  values (p_workspace_id, p_invoice_id, p_based_on, p_snapshot, p_previous_diff);

  if jsonb_array_length(p_updates) > 0 then
    update invoice_line_items li set description = t.description, unit_price = t.unit_price, quantity = t.quantity,
      amount = t.amount, tags = t.tags
    from jsonb_to_recordset(p_updates) as t(id text, description text, unit_price numeric, quantity integer, amount numeric, tags jsonb)
    where li.workspace_id = p_workspace_id and li.invoice_id = p_invoice_id and li.id = t.id;
  end if;
  if cardinality(p_deletes) > 0 then
    delete from invoice_line_items li
    where li.workspace_id = p_workspace_id and li.invoice_id = p_invoice_id and li.id = any(p_deletes);
  end if;
  if jsonb_array_length(p_creates) > 0 then
    insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency,
                                    unit_price, quantity, amount, tags)
    select p_workspace_id, p_invoice_id, t.id, t.position, t.type, t.product_id, t.user_id, t.description, t.currency,
           t.unit_price, t.quantity, t.amount, t.tags
    from jsonb_to_recordset(p_creates) as t(id text, position integer, type text, product_id text, user_id text,
                                            description text, currency text, unit_price numeric, quantity integer,
                                            amount numeric, tags jsonb);
  end if;
  return next v_row;
end
$$;
