-- Posting targets: each entry's ledger and the accounts its lines and conditions name, read
-- before posting, for every entry that arrived together in one statement.

-- Per request (1-based, the order of the ledger arrays): the live ledger matched by id or ik
-- (both given: both must match), its schema version's content hash, its posting revision (read
-- in the same snapshot as the accounts, so it names their state), and as JSON the accounts of
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
               schema_content_hash text, posting_revision bigint, accounts json)
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
    ), named as (
      -- Each reference probes the one unique index of the way it names its account (the other
      -- branches' one-time filters are false), fenced (lateral, offset 0): as a join, a ledger
      -- grown since its statistics were taken was scanned whole. An account named twice is
      -- listed twice.
      select m.request, a.* from unnest(p_ref_requests, p_ref_ids, p_ref_paths, p_ref_iks) as r(request, id, path, ik)
      join matched m on m.request = r.request
      cross join lateral (
        select * from ledger_accounts a
        where r.id is not null and a.workspace_id = m.workspace_id and a.id = r.id and a.ledger_id = m.id
        union all
        select * from ledger_accounts a
        where r.path is not null and a.workspace_id = m.workspace_id and a.ledger_id = m.id and a.path = r.path
        union all
        select * from ledger_accounts a
        where r.ik is not null and a.workspace_id = m.workspace_id and a.ledger_id = m.id and a.ik = r.ik
        offset 0
      ) a
    ), accounts_of as (
      -- One aggregation over every reference, instead of a scan of them all per request.
      select a.request, json_agg(json_build_object(
               'workspaceId', a.workspace_id, 'ledgerId', a.ledger_id, 'id', a.id, 'ik', a.ik, 'path', a.path,
               'parentId', a.parent_id, 'depth', a.depth, 'name', a.name, 'type', a.type,
               'currencyMode', a.currency_mode, 'currencyCode', a.currency_code, 'consistency', a.consistency,
               'linkedAccountId', a.linked_account_id, 'requestHash', a.request_hash, 'created', a.created)) as accounts
      from named a group by a.request
    )
    select m.request, m.workspace_id, m.id, m.ik, m.name, m.type, m.balance_utc_offset, m.schema_key, m.schema_version,
           m.request_hash, m.created,
           (select v.content_hash from ledger_schema_versions v
            where v.workspace_id = m.workspace_id and v.schema_key = m.schema_key and v.version = m.schema_version),
           m.posting_revision, coalesce(o.accounts, '[]')
    from matched m left join accounts_of o on o.request = m.request;
end
$$;
