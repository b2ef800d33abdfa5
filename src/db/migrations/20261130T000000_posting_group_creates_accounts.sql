-- post_ledger_entry_group now also creates the template instances its entries plan (a new
-- argument, p_new_accounts, and a new answer column, remapped): the old signature goes, and
-- src/db/functions/posting_groups.sql creates the new one.
drop function if exists post_ledger_entry_group(text[], text[], text[], text[], text[], text[], integer[], timestamptz[], text[],
                                                jsonb, jsonb, jsonb, jsonb, integer[], text[], text[], text[], numeric[], text[],
                                                text[], jsonb);
