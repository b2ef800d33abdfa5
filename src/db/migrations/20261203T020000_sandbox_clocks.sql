-- Sandbox clocks (spec/sandbox.openapi.yaml): a workspace's "now" frozen at `base`, or running
-- from `base` since `set_at` (real time). No row: real time. workspace_now() and the
-- sandbox_clock_stamp() triggers (functions/sandbox_clock.sql) read it.
create table if not exists sandbox_clocks (
  workspace_id text primary key references workspaces (id),
  frozen boolean not null,
  base timestamptz not null,
  set_at timestamptz not null
);
