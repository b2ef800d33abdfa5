-- Invoices.

-- Creates an invoice in one statement (one round trip, one commit): claims the invoice id (a
-- taken id answers 'taken' and writes nothing), resolves each line item's product (by code,
-- else by id) and user (by id, which must exist, or by external id, created on first use), and
-- writes the line items. An unknown product or user id raises unknown_product (SQLSTATE TL003)
-- or unknown_user (TL004) with the failing item indexes (0-based) as its detail, and the
-- statement writes nothing.
create or replace function create_invoice(p_workspace_id text, p_invoice_id text, p_tags jsonb, p_request_hash text, p_items jsonb)
returns table (outcome text, invoice_created timestamptz, users jsonb, products jsonb)
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
    return query select 'taken'::text, null::timestamptz, null::jsonb, null::jsonb;
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
  return query select 'created'::text, v_created, v_users, v_products;
end
$$;
