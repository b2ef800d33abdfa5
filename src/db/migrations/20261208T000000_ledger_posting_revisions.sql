-- Each server process keeps the ledgers and accounts its entries named (posting targets), and a
-- posting states the revision of its ledger it was prepared from: the posting functions refuse it
-- (posting_target_changed) once that revision is no longer current, and the server prepares the
-- entry again from a fresh lookup. A ledger's revision is a fresh number on every insert or change
-- of its row (a sandbox restore inserts it again) and on every change or removal of one of its
-- accounts, so an unchanged revision means that nothing a posting was prepared from has changed.
-- New accounts leave it as is: a process that lacks one looks it up.
-- Written to run again on a database that has it (see schema.test.ts).
create sequence if not exists ledger_posting_revisions;

-- Existing ledgers start at 0; their next change draws from the sequence.
alter table ledgers add column if not exists posting_revision bigint not null default 0;

-- The triggers that renew it, and their functions, are in functions/posting_revisions.sql.

-- The posting functions take the revisions, and the lookup answers them (functions/).
drop function if exists post_ledger_entry_checked(text, text, text, text, text, text, integer, jsonb, timestamptz, text, jsonb,
                                                   jsonb, jsonb, text[], text[], text[], numeric[], text[], text[], jsonb);
drop function if exists post_ledger_entry_group(text[], text[], text[], text[], text[], text[], integer[], timestamptz[], text[],
                                                 jsonb, jsonb, jsonb, jsonb, integer[], text[], text[], text[], numeric[], text[],
                                                 text[], jsonb, jsonb, boolean);
drop function if exists find_posting_targets(text[], text[], text[], integer[], text[], text[], text[]);
