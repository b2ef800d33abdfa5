-- Sandbox: workspaces whose queued balance deltas the fold leaves alone until released, so reads
-- of their eventual balances lag as they may in production (spec/sandbox.openapi.yaml).
create table if not exists sandbox_fold_holds (
  workspace_id text primary key references workspaces (id),
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp())
);

-- The fold takes a workspace to settle on its own (functions/balances.sql); the one-argument form goes.
drop function if exists fold_ledger_balance_queue(integer);
