-- The posting target: an entry's ledger and the accounts its lines and conditions name, read
-- before every posting.

-- The live ledger matched by id or ik (both given: both must match), its schema version's
-- content hash, and as JSON the accounts of that ledger named by id, path or ik (unknown names
-- are simply absent). A function so that its plans are cached once per connection and generic:
-- as a statement from the server, PostgreSQL planned it anew for every entry (about 0.6 ms,
-- six times its execution), judging the generic plan costlier than one for the given arrays.
create or replace function find_posting_target(p_workspace_id text, p_ledger_id text, p_ledger_ik text,
                                               p_account_ids text[], p_paths text[], p_iks text[])
returns table (workspace_id text, id text, ik text, name text, type text, balance_utc_offset text, schema_key text,
               schema_version integer, request_hash text, created timestamptz, schema_content_hash text, accounts json)
language plpgsql stable
set plan_cache_mode = force_generic_plan
as $$
#variable_conflict use_column
declare
  v_ledger ledgers;
begin
  -- Two statements, so each probes its own unique index.
  if p_ledger_id is not null then
    select * into v_ledger from ledgers g
    where g.workspace_id = p_workspace_id and g.id = p_ledger_id and g.deleted_at is null
      and (p_ledger_ik is null or g.ik = p_ledger_ik);
  else
    select * into v_ledger from ledgers g
    where g.workspace_id = p_workspace_id and g.ik = p_ledger_ik and g.deleted_at is null;
  end if;
  if v_ledger.id is null then
    return;
  end if;
  return query
    select v_ledger.workspace_id, v_ledger.id, v_ledger.ik, v_ledger.name, v_ledger.type, v_ledger.balance_utc_offset,
           v_ledger.schema_key, v_ledger.schema_version, v_ledger.request_hash, v_ledger.created,
           (select v.content_hash from ledger_schema_versions v
            where v.workspace_id = v_ledger.workspace_id and v.schema_key = v_ledger.schema_key
              and v.version = v_ledger.schema_version),
           (select coalesce(json_agg(named), '[]') from (
              select a.workspace_id as "workspaceId", a.ledger_id as "ledgerId", a.id, a.ik, a.path, a.parent_id as "parentId",
                     a.depth, a.name, a.type, a.currency_mode as "currencyMode", a.currency_code as "currencyCode",
                     a.consistency, a.linked_account_id as "linkedAccountId", a.request_hash as "requestHash", a.created
              from ledger_accounts a
              where a.workspace_id = v_ledger.workspace_id and a.ledger_id = v_ledger.id
                and (a.id = any(p_account_ids) or a.path = any(p_paths) or a.ik = any(p_iks))
            ) named);
end
$$;
