-- Billing users named by the items of a write (invoice line items, allocations): an item names
-- its user by `user_id`, which must exist, or by `user_external_id`, created on first use with
-- the id the server planned (`new_user_id`). Users are found by `= any(array)` key probes: a
-- not-exists or an OR join over the JSON items (estimated at 100 rows) may be planned as a scan
-- of every user of every workspace.

-- Raises unknown_user (SQLSTATE TL004) with the indexes (0-based) of the items whose user id
-- does not exist in the workspace.
create or replace function require_billing_users(p_workspace_id text, p_items jsonb) returns void
language plpgsql as $$
declare
  v_user_ids text[] := array(select i->>'user_id' from jsonb_array_elements(p_items) i where i->>'user_id' is not null);
  v_found text[];
  v_missing jsonb;
begin
  select coalesce(array_agg(u.id), '{}') into v_found from billing_users u
  where u.workspace_id = p_workspace_id and u.id = any(v_user_ids);
  select jsonb_agg(n - 1 order by n) into v_missing
  from jsonb_array_elements(p_items) with ordinality as t(i, n)
  where i->>'user_id' is not null and not (i->>'user_id') = any(v_found);
  if v_missing is not null then
    raise exception using errcode = 'TL004', message = 'unknown_user', detail = v_missing::text;
  end if;
end
$$;

-- Creates the users named by an external id not known yet, with the id planned by an item naming
-- it (the server plans one per distinct external id), then answers each user reference
-- ('id:<id>' or 'ext:<external id>') as [id, external id], for the items to name their user by id.
create or replace function ensure_billing_users(p_workspace_id text, p_items jsonb) returns jsonb
language plpgsql as $$
declare
  v_user_ids text[] := array(select i->>'user_id' from jsonb_array_elements(p_items) i where i->>'user_id' is not null);
  v_user_external_ids text[] := array(select i->>'user_external_id' from jsonb_array_elements(p_items) i
                                      where i->>'user_external_id' is not null);
  v_users jsonb;
begin
  insert into billing_users (workspace_id, id, external_id)
  select distinct on (i->>'user_external_id') p_workspace_id, i->>'new_user_id', i->>'user_external_id'
  from jsonb_array_elements(p_items) i where i->>'user_external_id' is not null and i->>'new_user_id' is not null
  order by i->>'user_external_id'
  on conflict (workspace_id, external_id) do nothing;
  select coalesce(jsonb_object_agg(r.key, jsonb_build_array(r.id, r.external_id)), '{}') into v_users
  from (select 'id:' || u.id as key, u.id, u.external_id from billing_users u
        where u.workspace_id = p_workspace_id and u.id = any(v_user_ids)
        union
        select 'ext:' || u.external_id, u.id, u.external_id from billing_users u
        where u.workspace_id = p_workspace_id and u.external_id = any(v_user_external_ids)) r;
  return v_users;
end
$$;

-- For the set-based group writes (billing_groups.sql), whose arrays hold one element per item of
-- every call: creates the users the items of the calls in p_live name by an external id not
-- known yet, each with the planned id of the earliest item naming it that has one (by call, then
-- by p_positions, each item's place in its call; a call may plan an id only on the first item
-- naming each external id), then answers every item's user id, in the order given.
create or replace function ensure_named_users(p_calls integer[], p_positions integer[], p_workspaces text[],
                                              p_user_ids text[], p_external_ids text[], p_new_user_ids text[],
                                              p_live integer[]) returns text[]
language plpgsql
set plan_cache_mode = force_generic_plan
as $$
declare
  v_ids jsonb;
  v_user_ids text[];
begin
  insert into billing_users (workspace_id, id, external_id)
  select distinct on (m.workspace_id, m.external_id) m.workspace_id, m.new_user_id, m.external_id
  from unnest(p_calls, p_positions, p_workspaces, p_user_ids, p_external_ids, p_new_user_ids)
         as m(n, position, workspace_id, user_id, external_id, new_user_id)
  where m.user_id is null and m.new_user_id is not null and m.n = any(p_live)
  order by m.workspace_id, m.external_id, m.n, m.position
  on conflict (workspace_id, external_id) do nothing;

  -- Each external id probed once, read back per item from a keyed map: a join of the items back
  -- to the probes (estimated at a few rows under a generic plan) was planned as a nested loop,
  -- quadratic in a large group.
  select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.external_id, u.id), '{}') into v_ids
  from (select distinct m.workspace_id, m.external_id
        from unnest(p_calls, p_workspaces, p_user_ids, p_external_ids) as m(n, workspace_id, user_id, external_id)
        where m.user_id is null and m.n = any(p_live)) r
  cross join lateral (select u.id from billing_users u
                      where u.workspace_id = r.workspace_id and u.external_id = r.external_id offset 0) u;
  select array_agg(coalesce(m.user_id, v_ids ->> (m.workspace_id || E'\n' || m.external_id)) order by m.k) into v_user_ids
  from unnest(p_workspaces, p_user_ids, p_external_ids) with ordinality as m(workspace_id, user_id, external_id, k);
  return v_user_ids;
end
$$;
