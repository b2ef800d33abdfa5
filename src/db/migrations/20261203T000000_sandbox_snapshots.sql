-- Sandbox snapshots (spec/sandbox.openapi.yaml). A snapshot's rows live in shadow tables of the
-- schema tally_snapshots, one per workspace table, made on first use by src/db/sandbox/; this
-- table names each snapshot and records the table layout it was saved under, so a snapshot saved
-- before a later migration is refused instead of restored wrongly.
create schema if not exists tally_snapshots;

create table if not exists sandbox_snapshots (
  workspace_id text not null references workspaces (id),
  name text not null,
  id text not null unique,
  layout text not null,
  row_count bigint not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint sandbox_snapshots_pkey primary key (workspace_id, name)
);
