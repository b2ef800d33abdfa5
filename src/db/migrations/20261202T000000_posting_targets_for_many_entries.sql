-- find_posting_target read one entry's ledger and accounts; find_posting_targets
-- (functions/posting_target.sql) reads those of every entry that arrived together.
drop function if exists find_posting_target(text, text, text, text[], text[], text[]);
