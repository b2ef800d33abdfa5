-- Most entries carry no tags and no groups, and a GIN index still records an empty item for
-- each of them: two index insertions per posting that no read uses (a filter by tag or group
-- always names a pair). The indexes now hold only entries with tags or groups; the filters
-- repeat the predicate so that the planner may use them.
drop index ledger_entries_groups_idx;
create index ledger_entries_groups_idx on ledger_entries using gin (groups jsonb_path_ops) where groups <> '[]'::jsonb;
drop index ledger_entries_tags_idx;
create index ledger_entries_tags_idx on ledger_entries using gin (tags jsonb_path_ops) where tags <> '[]'::jsonb;
