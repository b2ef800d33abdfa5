-- Posting revisions (migration 20261208T000000 adds the column): a ledger's
-- revision is renewed, in the changing transaction, whenever anything a posting is prepared from
-- changes, so a posting that states the revision it was prepared from can be checked
-- (require_current_ledger_revisions, posting.sql).

-- Trigger of ledgers, before insert or update: a fresh revision for every new row version (a
-- sandbox restore inserts the row again, with the revision it had when saved).
create or replace function renew_ledger_posting_revision() returns trigger
language plpgsql as $$
begin
  new.posting_revision := nextval('ledger_posting_revisions');
  return new;
end
$$;

-- Trigger of ledger_accounts, after an update or delete statement (the transition table
-- `changed`): renews the revision of every ledger whose accounts changed. Accounts a posting
-- statement created and removes again (planned for refused entries) were never seen by another
-- transaction: remove_unneeded_accounts says so, and their ledger keeps its revision (renewing it
-- would lock the ledger row for the rest of the posting's transaction).
create or replace function renew_posting_revisions_of_accounts() returns trigger
language plpgsql as $$
begin
  if current_setting('tally.removing_unseen_accounts', true) = 'on' then
    return null;
  end if;
  update ledgers g set posting_revision = nextval('ledger_posting_revisions')
  from (select distinct c.workspace_id, c.ledger_id from changed c) k
  where g.workspace_id = k.workspace_id and g.id = k.ledger_id;
  return null;
end
$$;

-- Their triggers, attached here with the functions they run: a migration that created them would
-- need the functions first, and function files are applied after the migrations.
create or replace trigger ledgers_posting_revision before insert or update on ledgers
  for each row execute function renew_ledger_posting_revision();
create or replace trigger ledger_accounts_updated after update on ledger_accounts
  referencing old table as changed for each statement execute function renew_posting_revisions_of_accounts();
create or replace trigger ledger_accounts_deleted after delete on ledger_accounts
  referencing old table as changed for each statement execute function renew_posting_revisions_of_accounts();
