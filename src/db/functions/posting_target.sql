-- Posting targets: each entry's ledger and the accounts its lines and conditions name, read
-- before posting, for every entry that arrived together in one statement.

-- Per request (1-based, the order of the ledger arrays): the live ledger matched by id or ik
-- (both given: both must match), its schema version's content hash, and as JSON the accounts of
-- that ledger its references name by id, path or ik (p_ref_requests says whose reference each
-- is; unknown names are absent, an account named twice may be listed twice). A request whose
-- ledger is not found has no row.
-- Generic plans: as a statement from the server, PostgreSQL planned the lookup anew for every
-- entry (about 0.6 ms, six times its execution), judging the generic plan costlier than one
-- for the given arrays.
create or replace function find_posting_targets(p_workspace_ids text[], p_ledger_ids text[], p_ledger_iks text[],
                                                p_ref_requests integer[], p_ref_ids text[], p_ref_paths text[],
                                                p_ref_iks text[])
returns table (request integer, workspace_id text, id text, ik text, name text, type text, balance_utc_offset text,
               schema_key text, schema_version integer, request_hash text, created timestamptz,
               schema_content_hash text, accounts json)
language plpgsql stable
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
begin
  return query
    with wanted as (
      select w.request::integer, w.workspace_id, w.ledger_id, w.ledger_ik
      from unnest(p_workspace_ids, p_ledger_ids, p_ledger_iks) with ordinality as w(workspace_id, ledger_id, ledger_ik, request)
    ), matched as (
      -- By id, or else by ik: each branch probes its own unique index.
      select w.request, g.* from wanted w
      join ledgers g on g.workspace_id = w.workspace_id and g.id = w.ledger_id
      where w.ledger_id is not null and g.deleted_at is null and (w.ledger_ik is null or g.ik = w.ledger_ik)
      union all
      select w.request, g.* from wanted w
      join ledgers g on g.workspace_id = w.workspace_id and g.ik = w.ledger_ik
      where w.ledger_id is null and g.deleted_at is null
    ), ref as (
      select r.* from unnest(p_ref_requests, p_ref_ids, p_ref_paths, p_ref_iks) as r(request, id, path, ik)
    ), named as (
      -- Each reference names its account one way (an account named twice is listed twice), one
      -- probe of its unique index each, fenced (lateral, offset 0): as a join, a ledger grown
      -- since its statistics were taken was scanned whole.
      select m.request, a.* from ref r join matched m on m.request = r.request
      cross join lateral (select * from ledger_accounts a
                          where a.workspace_id = m.workspace_id and a.id = r.id and a.ledger_id = m.id offset 0) a
      where r.id is not null
      union all
      select m.request, a.* from ref r join matched m on m.request = r.request
      cross join lateral (select * from ledger_accounts a
                          where a.workspace_id = m.workspace_id and a.ledger_id = m.id and a.path = r.path offset 0) a
      where r.path is not null
      union all
      select m.request, a.* from ref r join matched m on m.request = r.request
      cross join lateral (select * from ledger_accounts a
                          where a.workspace_id = m.workspace_id and a.ledger_id = m.id and a.ik = r.ik offset 0) a
      where r.ik is not null
    )
    select m.request, m.workspace_id, m.id, m.ik, m.name, m.type, m.balance_utc_offset, m.schema_key, m.schema_version,
           m.request_hash, m.created,
           (select v.content_hash from ledger_schema_versions v
            where v.workspace_id = m.workspace_id and v.schema_key = m.schema_key and v.version = m.schema_version),
           (select coalesce(json_agg(account), '[]') from (
              select a.workspace_id as "workspaceId", a.ledger_id as "ledgerId", a.id, a.ik, a.path, a.parent_id as "parentId",
                     a.depth, a.name, a.type, a.currency_mode as "currencyMode", a.currency_code as "currencyCode",
                     a.consistency, a.linked_account_id as "linkedAccountId", a.request_hash as "requestHash", a.created
              from named a where a.request = m.request
            ) account)
    from matched m;
end
$$;
