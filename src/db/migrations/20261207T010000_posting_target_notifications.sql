-- Each server process caches the ledgers and accounts entries post to (posting targets). A
-- change to a ledger row or to an account, or their removal (a deleted ledger, a sandbox reset or
-- restore), tells every process, in the changing transaction's commit, to drop what it holds of
-- that ledger: NOTIFY tally_posting_targets, payload '<workspace id> <ledger id>', once per
-- ledger and statement. New accounts need no notice: a process that lacks one looks it up.
-- The trigger functions live here beside their triggers, which need them to exist first.
-- Written to run again on a database that has it (see schema.test.ts).
create or replace function notify_posting_targets_of_accounts() returns trigger
language plpgsql as $$
begin
  perform pg_notify('tally_posting_targets', k.workspace_id || ' ' || k.ledger_id)
  from (select distinct c.workspace_id, c.ledger_id from changed c) k;
  return null;
end
$$;

create or replace function notify_posting_targets_of_ledgers() returns trigger
language plpgsql as $$
begin
  perform pg_notify('tally_posting_targets', k.workspace_id || ' ' || k.id)
  from (select distinct c.workspace_id, c.id from changed c) k;
  return null;
end
$$;

drop trigger if exists ledger_accounts_updated on ledger_accounts;
create trigger ledger_accounts_updated after update on ledger_accounts
  referencing old table as changed for each statement execute function notify_posting_targets_of_accounts();
drop trigger if exists ledger_accounts_deleted on ledger_accounts;
create trigger ledger_accounts_deleted after delete on ledger_accounts
  referencing old table as changed for each statement execute function notify_posting_targets_of_accounts();
drop trigger if exists ledgers_updated on ledgers;
create trigger ledgers_updated after update on ledgers
  referencing old table as changed for each statement execute function notify_posting_targets_of_ledgers();
drop trigger if exists ledgers_deleted on ledgers;
create trigger ledgers_deleted after delete on ledgers
  referencing old table as changed for each statement execute function notify_posting_targets_of_ledgers();
