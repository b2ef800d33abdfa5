-- A product's roles live on its row, in order, as [{"id", "name"}] per relation. Neither a
-- product nor a role changes once created, and building the lists from product_roles took two
-- correlated subqueries, 22 µs of PostgreSQL's ~25 µs for GET /billing/products/{code}.
-- Written to run again on a database that has it (see schema.test.ts).
alter table products
  add column if not exists paid_by_roles jsonb not null default '[]',
  add column if not exists paid_to_roles jsonb not null default '[]';

do $$
begin
  if to_regclass('product_roles') is not null then
    update products p
    set paid_by_roles = coalesce(r.paid_by, '[]'), paid_to_roles = coalesce(r.paid_to, '[]')
    from (
      select pr.workspace_id, pr.product_id,
             jsonb_agg(jsonb_build_object('id', b.id, 'name', b.name) order by pr.position)
               filter (where pr.relation = 'paid_by') as paid_by,
             jsonb_agg(jsonb_build_object('id', b.id, 'name', b.name) order by pr.position)
               filter (where pr.relation = 'paid_to') as paid_to
      from product_roles pr
      join billing_roles b on b.workspace_id = pr.workspace_id and b.id = pr.role_id
      group by pr.workspace_id, pr.product_id
    ) r
    where p.workspace_id = r.workspace_id and p.id = r.product_id;
  end if;
end
$$;

drop table if exists product_roles;
-- The sandbox's snapshot copy of it (made on first use; snapshots of the old layout are refused anyway).
drop table if exists tally_snapshots.product_roles;
