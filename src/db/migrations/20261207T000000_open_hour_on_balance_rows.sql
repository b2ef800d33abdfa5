-- A balance row carries the deltas of its latest local hour (its "open hour") until a posting in
-- another hour closes it into the fold's queue: a strong posting in the hour its account last
-- posted in writes no queue row, and the fold no bucket row, since the balance row it updates
-- anyway holds them. Reads and checks treat an open hour as one more queued delta (already in
-- own_balance). Before: 2 queue rows and their 2 index entries per transfer, then their delete
-- and ~2.5 bucket updates in the fold.
-- Written to run again on a database that has it (see schema.test.ts).
do $$
begin
  -- The posting functions read the row they replace (INSERT … RETURNING old), new in PostgreSQL 18.
  if current_setting('server_version_num')::integer < 180000 then
    raise exception 'Tally needs PostgreSQL 18 or later; this server runs %', current_setting('server_version');
  end if;
end
$$;

alter table ledger_account_balances
  add column if not exists open_hour timestamp,
  add column if not exists open_amount numeric not null default 0,
  add column if not exists open_lines bigint not null default 0;
