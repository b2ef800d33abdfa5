-- Ledger schemas (charts of accounts and entry types), versioned: each content change adds a version.
create table ledger_schemas (
  workspace_id text not null references workspaces (id),
  key text not null,
  name text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint ledger_schemas_pkey primary key (workspace_id, key)
);

create table ledger_schema_versions (
  workspace_id text not null,
  schema_key text not null,
  version integer not null check (version >= 1),
  content jsonb not null,
  content_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint ledger_schema_versions_pkey primary key (workspace_id, schema_key, version),
  foreign key (workspace_id, schema_key) references ledger_schemas (workspace_id, key)
);

create table ledgers (
  workspace_id text not null references workspaces (id),
  id text not null,
  ik text not null,
  name text not null,
  type text not null default 'double' check (type = 'double'),
  balance_utc_offset text not null default '+00:00',
  schema_key text,
  -- Hash of the creating request: a replayed ik with a different payload is detected, not ignored.
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  deleted_at timestamptz,
  constraint ledgers_pkey primary key (workspace_id, id),
  foreign key (workspace_id, schema_key) references ledger_schemas (workspace_id, key)
);
-- A live ledger owns its ik; a deleted one releases it (after a grace period enforced in code).
create unique index ledgers_ik_key on ledgers (workspace_id, ik) where deleted_at is null;
create index ledgers_newest_idx on ledgers (workspace_id, created desc, id desc) where deleted_at is null;
