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

-- The trigger functions are defined in functions/posting_revisions.sql, applied right after the
-- migrations in the same transaction; placeholders let the triggers be created here first.
create or replace function renew_ledger_posting_revision() returns trigger language plpgsql as $$ begin return new; end $$;
create or replace function renew_posting_revisions_of_accounts() returns trigger language plpgsql as $$ begin return null; end $$;

drop trigger if exists ledgers_posting_revision on ledgers;
create trigger ledgers_posting_revision before insert or update on ledgers
  for each row execute function renew_ledger_posting_revision();
drop trigger if exists ledger_accounts_updated on ledger_accounts;
create trigger ledger_accounts_updated after update on ledger_accounts
  referencing old table as changed for each statement execute function renew_posting_revisions_of_accounts();
drop trigger if exists ledger_accounts_deleted on ledger_accounts;
create trigger ledger_accounts_deleted after delete on ledger_accounts
  referencing old table as changed for each statement execute function renew_posting_revisions_of_accounts();

-- The posting functions take the revisions, and the lookup answers them (functions/).
drop function if exists post_ledger_entry_checked(text, text, text, text, text, text, integer, jsonb, timestamptz, text, jsonb,
                                                   jsonb, jsonb, text[], text[], text[], numeric[], text[], text[], jsonb);
drop function if exists post_ledger_entry_group(text[], text[], text[], text[], text[], text[], integer[], timestamptz[], text[],
                                                 jsonb, jsonb, jsonb, jsonb, integer[], text[], text[], text[], numeric[], text[],
                                                 text[], jsonb, jsonb, boolean);
drop function if exists find_posting_targets(text[], text[], text[], integer[], text[], text[], text[]);
