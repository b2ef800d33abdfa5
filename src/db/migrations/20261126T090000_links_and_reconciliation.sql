-- The ledger's connections to the outside world: custom currencies, links to external systems
-- with their accounts and transactions, reconciliation of those transactions into linked
-- ledger accounts, and the records schema changes leave (ledger migrations, data migrations).
--
-- Currency columns of accounts, lines and balances keep one text key per currency: the code
-- of a built-in currency ('USD'), or 'CUSTOM:<customCurrencyId>' (ids cannot hold ':').

create table ledger_custom_currencies (
  workspace_id text not null references workspaces (id),
  id text not null,
  custom_code text not null,
  name text not null,
  precision integer not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint ledger_custom_currencies_pkey primary key (workspace_id, id)
);
create index ledger_custom_currencies_newest_idx on ledger_custom_currencies (workspace_id, created desc, id desc);

create table ledger_links (
  workspace_id text not null references workspaces (id),
  id text not null,
  ik text not null,
  name text not null,
  -- Only custom links are created through the API; provider links exist in the contract.
  kind text not null default 'custom' check (kind in ('custom', 'provider')),
  provider_env text,
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint ledger_links_pkey primary key (workspace_id, id),
  constraint ledger_links_ik_key unique (workspace_id, ik)
);
create index ledger_links_newest_idx on ledger_links (workspace_id, created desc, id desc);

create table ledger_external_accounts (
  workspace_id text not null,
  id text not null,
  link_id text not null,
  external_id text not null,
  name text not null,
  currency_mode text not null check (currency_mode in ('single', 'multi')),
  currency text,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint ledger_external_accounts_pkey primary key (workspace_id, id),
  constraint ledger_external_accounts_external_id_key unique (workspace_id, link_id, external_id),
  constraint ledger_external_accounts_link_fkey foreign key (workspace_id, link_id) references ledger_links (workspace_id, id),
  constraint ledger_external_accounts_currency_check check ((currency_mode = 'multi') = (currency is null))
);
create index ledger_external_accounts_newest_idx on ledger_external_accounts (workspace_id, link_id, created desc, id desc);

-- A deleted transaction keeps its row (it is still found by id); syncing its external id again
-- adds a row with the next sequence. Only one live row per external id.
create table ledger_external_txs (
  workspace_id text not null,
  id text not null,
  link_id text not null,
  account_id text not null,
  external_id text not null,
  sequence integer not null check (sequence >= 1),
  amount numeric(37, 0) not null,
  currency text not null,
  description text not null,
  posted timestamptz not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  deleted_at timestamptz,
  constraint ledger_external_txs_pkey primary key (workspace_id, id),
  constraint ledger_external_txs_sequence_key unique (workspace_id, account_id, external_id, sequence),
  constraint ledger_external_txs_account_fkey foreign key (workspace_id, account_id) references ledger_external_accounts (workspace_id, id)
);
create unique index ledger_external_txs_live_key on ledger_external_txs (workspace_id, account_id, external_id) where deleted_at is null;
create index ledger_external_txs_posted_idx on ledger_external_txs (workspace_id, account_id, posted desc, id desc) where deleted_at is null;

alter table ledger_accounts add column linked_account_id text;
alter table ledger_accounts add constraint ledger_accounts_linked_fkey
  foreign key (workspace_id, linked_account_id) references ledger_external_accounts (workspace_id, id);
create index ledger_accounts_linked_idx on ledger_accounts (workspace_id, linked_account_id, created desc, id desc)
  where linked_account_id is not null;

-- The line of an entry that reconciles a transaction into a linked account. Lines stay
-- append-only; a reversal's lines are found through the entry they reverse.
create table ledger_reconciliations (
  workspace_id text not null,
  entry_id text not null,
  position smallint not null,
  tx_id text not null,
  account_id text not null,
  constraint ledger_reconciliations_pkey primary key (workspace_id, entry_id, position),
  constraint ledger_reconciliations_entry_fkey foreign key (workspace_id, entry_id) references ledger_entries (workspace_id, id),
  constraint ledger_reconciliations_tx_fkey foreign key (workspace_id, tx_id) references ledger_external_txs (workspace_id, id)
);
create index ledger_reconciliations_tx_idx on ledger_reconciliations (workspace_id, tx_id, account_id);
create index ledger_reconciliations_account_idx on ledger_reconciliations (workspace_id, account_id, tx_id);

-- Each move of a ledger to a schema version. Tally applies versions in the storing
-- transaction, so a recorded migration has completed; superseded ones were skipped.
create table ledger_migrations (
  workspace_id text not null,
  ledger_id text not null,
  schema_key text not null,
  schema_version integer not null,
  status text not null check (status in ('queued', 'started', 'completed', 'failed', 'skipped')),
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint ledger_migrations_pkey primary key (workspace_id, ledger_id, schema_version),
  constraint ledger_migrations_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id)
);
create index ledger_migrations_version_idx on ledger_migrations (workspace_id, schema_key, schema_version);

insert into ledger_migrations (workspace_id, ledger_id, schema_key, schema_version, status, created)
select workspace_id, id, schema_key, schema_version, 'completed', created from ledgers
where schema_key is not null and schema_version is not null;

-- Data a schema version left behind: entries of an entry type version the schema superseded
-- (subject '<type>@<version>'), or accounts at a chart path the schema archived or disabled
-- (subject: the chart path). One row per ledger and subject, from the first version that did it.
create table ledger_data_migrations (
  workspace_id text not null,
  ledger_id text not null,
  kind text not null check (kind in ('entry', 'account')),
  subject text not null,
  entry_type text,
  type_version integer,
  account_path text,
  schema_version integer not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint ledger_data_migrations_pkey primary key (workspace_id, ledger_id, kind, subject),
  constraint ledger_data_migrations_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id)
);

-- Entry stats by type and version count reversals apart, so they come from one index.
create index ledger_entries_type_idx on ledger_entries (workspace_id, ledger_id, type, type_version) where type is not null;

-- The concrete account paths of a chart path, as a regular expression: each segment may carry
-- a template value (`users` matches `users:u1`).
create function chart_path_pattern(p_chart_path text) returns text
language sql immutable as $$
  select '^' || string_agg(regexp_replace(s.segment, '([.^$*+?()\[\]{}|\\-])', '\\\1', 'g') || '(:[^/]+)?', '/' order by s.n) || '$'
  from unnest(string_to_array(p_chart_path, '/')) with ordinality as s(segment, n)
$$;

-- Experimental payments: recorded with their client secret, idempotent by ik within the ledger.
-- Tally has no payment processor, so a payment stays where it starts.
create table ledger_payments (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  type text,
  type_version integer,
  parameters jsonb,
  amount numeric(37, 0) not null,
  status text not null,
  client_secret text not null,
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  constraint ledger_payments_pkey primary key (workspace_id, id),
  constraint ledger_payments_ik_key unique (workspace_id, ledger_id, ik),
  constraint ledger_payments_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id)
);
