-- Tenancy: every row of every later table carries workspace_id, and its keys start with it,
-- so every query is scoped by the caller's workspace and the data shards cleanly by workspace.
-- Timestamps are kept at millisecond precision, the precision the APIs emit, so keyset cursors
-- built from them (created, id) compare exactly.

create table workspaces (
  id text primary key,
  name text not null,
  created timestamptz not null default date_trunc('milliseconds', now())
);

-- API clients authenticate with OAuth2 client credentials; only a salted scrypt hash is kept.
create table api_clients (
  client_id text primary key,
  workspace_id text not null references workspaces (id),
  secret_hash text not null,
  name text not null,
  created timestamptz not null default date_trunc('milliseconds', now())
);
create index api_clients_workspace_idx on api_clients (workspace_id);

-- Process-wide secrets (the access-token signing key) shared by every Tally process on this database.
create table server_secrets (
  name text primary key,
  value bytea not null,
  created timestamptz not null default date_trunc('milliseconds', now())
);
