-- Groups and tags are found by containment (`groups @> '[{"key":..,"value":..}]'`): group
-- lists, group balances and the tag and group filters of entry lists use these indexes.
create index ledger_entries_groups_idx on ledger_entries using gin (groups jsonb_path_ops);
create index ledger_entries_tags_idx on ledger_entries using gin (tags jsonb_path_ops);
