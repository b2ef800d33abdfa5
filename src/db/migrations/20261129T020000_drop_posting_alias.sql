-- post_ledger_entry_or_refuse only forwarded to post_ledger_entry_checked under another name: the
-- server calls post_ledger_entry_checked itself now.
drop function if exists post_ledger_entry_or_refuse(text, text, text, text, text, text, integer, jsonb, timestamptz, text, jsonb, jsonb, jsonb,
                                                    text[], text[], text[], numeric[], text[], text[], jsonb);
