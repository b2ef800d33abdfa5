-- Group commit is now set-based (post_ledger_entry_group in functions/posting_groups.sql): the
-- per-entry loop over a jsonb document and its helper go.
drop function if exists post_ledger_entries(jsonb, text[], text[], text[]);
drop function if exists jsonb_text_array(jsonb);

-- The balance queue is a FIFO that every fold deletes from the head of: vacuum it after a fixed
-- number of dead rows, not after a fifth of the table, so the folds do not wade through them.
alter table ledger_balance_queue set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
