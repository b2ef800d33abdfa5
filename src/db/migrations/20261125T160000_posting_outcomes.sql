-- Group commit: several entries are posted in one transaction, so a failing condition must
-- refuse only its own entry. This wrapper runs the posting in a subtransaction and answers the
-- failed condition's index as a row instead of raising; any other error still raises.
create function post_ledger_entry_or_refuse(
  p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text,
  p_type text, p_type_version integer, p_parameters jsonb,
  p_posted timestamptz, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb,
  p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[]
) returns table (posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamptz, posted_position integer,
                 failed_condition integer)
language plpgsql as $$
declare
  v_detail text;
begin
  return query
    select p.posted_entry_id, p.posted_request_hash, p.replayed, p.posted_created, p.posted_position, null::integer
    from post_ledger_entry(p_workspace_id, p_ledger_id, p_entry_id, p_ik, p_request_hash, p_type, p_type_version, p_parameters,
                           p_posted, p_description, p_tags, p_groups, p_conditions,
                           p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_descriptions) p;
exception when raise_exception then
  if sqlerrm <> 'entry_condition_failed' then
    raise;
  end if;
  get stacked diagnostics v_detail = pg_exception_detail;
  return query select null::text, null::text, false, null::timestamptz, null::integer, v_detail::integer;
end
$$;
