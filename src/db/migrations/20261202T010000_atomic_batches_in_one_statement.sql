-- post_ledger_entry_group takes p_all_or_nothing (addLedgerEntries posts without a transaction
-- around the statement); functions/posting_groups.sql creates the new signature.
drop function if exists post_ledger_entry_group(text[], text[], text[], text[], text[], text[], integer[], timestamptz[], text[],
                                                jsonb, jsonb, jsonb, jsonb, integer[], text[], text[], text[], numeric[], text[],
                                                text[], jsonb, jsonb);
