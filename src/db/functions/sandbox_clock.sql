-- The sandbox's clock per workspace (table sandbox_clocks). Without a clock row a workspace
-- lives in real time. A running clock counts from the transaction's start (now()), so every row
-- a transaction writes carries the same instant, as with real time.

-- The workspace's clock reading, or null when it lives in real time.
create or replace function sandbox_clock_now(p_workspace_id text) returns timestamptz
language sql stable as $$
  select date_trunc('milliseconds', case when c.frozen then c.base else c.base + (now() - c.set_at) end)
  from sandbox_clocks c where c.workspace_id = p_workspace_id
$$;

-- The workspace's now: what SQL that stamps a workspace's rows by hand uses instead of now().
create or replace function workspace_now(p_workspace_id text) returns timestamptz
language sql stable as $$
  select coalesce(sandbox_clock_now(p_workspace_id), date_trunc('milliseconds', now()))
$$;

-- Trigger of the tables whose rows are stamped by column defaults (created, generated_at, ...):
-- installed by the sandbox when a first clock is set (src/db/sandbox/clocks.ts), it replaces the
-- columns named as trigger arguments with the workspace's clock, when the workspace has one. A
-- column left null stays null (an invoice's `modified` before its first change), and rows a
-- snapshot restore writes back keep their own times (it sets tally.restoring for its transaction).
create or replace function sandbox_clock_stamp() returns trigger
language plpgsql as $$
declare
  v_now timestamptz;
  v_row jsonb;
  v_stamps jsonb := '{}';
  v_column text;
begin
  if current_setting('tally.restoring', true) = 'on' then
    return new;
  end if;
  v_now := sandbox_clock_now(new.workspace_id);
  if v_now is null then
    return new;
  end if;
  v_row := to_jsonb(new);
  foreach v_column in array tg_argv loop
    if v_row ->> v_column is not null then
      v_stamps := v_stamps || jsonb_build_object(v_column, v_now);
    end if;
  end loop;
  return jsonb_populate_record(new, v_stamps);
end
$$;
