-- Baseline: every table, index and constraint Tally has, as one migration. It replaced the
-- eighteen migrations of 2026-11-21 to 2026-11-27 (no release ever shipped them); a database
-- they built has exactly these tables and is adopted as at this baseline (see migrate.ts).
-- Functions are not here: they live in src/db/functions/, applied after the migrations.
--
-- From here on a versioned migration only changes tables (forward-only once released), and
-- never calls a function of src/db/functions/.
--
-- Tenancy: every row of every table carries workspace_id, and its keys start with it, so every
-- query is scoped by the caller's workspace and the data shards cleanly by workspace.
-- Timestamps are kept at millisecond precision, the precision the APIs emit, so keyset cursors
-- built from them (created, id) compare exactly.
--
-- Column order is the order the columns were added in (a new column goes last).

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

-------------------------------------------------------------------------------------------------
-- Billing: roles and products.

create table billing_roles (
  workspace_id text not null references workspaces (id),
  id text not null,
  name text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint billing_roles_pkey primary key (workspace_id, id),
  constraint billing_roles_name_key unique (workspace_id, name)
);

-- Product create replays like the other creates: the code is the idempotency key, and
-- request_hash (the fingerprint of the creating request) tells a replay from another body.
-- It is null for products created before products kept one: a create with their code answers 409.
create table products (
  workspace_id text not null references workspaces (id),
  id text not null,
  code text not null,
  description text not null,
  update_version integer not null default 1,
  created timestamptz not null default date_trunc('milliseconds', now()),
  request_hash text,
  constraint products_pkey primary key (workspace_id, id),
  constraint products_code_key unique (workspace_id, code)
);

-- Which roles pay for a product and which are paid for it, in the order the caller gave them.
create table product_roles (
  workspace_id text not null,
  product_id text not null,
  relation text not null check (relation in ('paid_by', 'paid_to')),
  position integer not null,
  role_id text not null,
  constraint product_roles_pkey primary key (workspace_id, product_id, relation, role_id),
  foreign key (workspace_id, product_id) references products (workspace_id, id),
  foreign key (workspace_id, role_id) references billing_roles (workspace_id, id)
);

-------------------------------------------------------------------------------------------------
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
  -- The offset of the ledger's balance buckets ('+05:30'); it never changes.
  balance_utc_offset text not null default '+00:00',
  schema_key text,
  -- Hash of the creating request: a replayed ik with a different payload is detected, not ignored.
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  deleted_at timestamptz,
  -- The schema version the ledger is on; each move to a version is recorded in ledger_migrations.
  schema_version integer check (schema_version >= 1),
  constraint ledgers_pkey primary key (workspace_id, id),
  foreign key (workspace_id, schema_key) references ledger_schemas (workspace_id, key)
);
-- A live ledger owns its ik; a deleted one releases it (after a grace period enforced in code).
create unique index ledgers_ik_key on ledgers (workspace_id, ik) where deleted_at is null;
create index ledgers_newest_idx on ledgers (workspace_id, created desc, id desc) where deleted_at is null;

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

-- Custom currencies. Currency columns of accounts, lines and balances keep one text key per
-- currency: the code of a built-in currency ('USD'), or 'CUSTOM:<customCurrencyId>' (ids cannot hold ':').
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

-------------------------------------------------------------------------------------------------
-- Links: the ledger's connections to external systems, with their accounts and transactions.

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

-------------------------------------------------------------------------------------------------
-- Ledger accounts: a tree per ledger, addressed by id, by ik and by path.

create table ledger_accounts (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  -- Segments joined with '/': the iks (or chart keys) of the account and its ancestors.
  path text not null,
  parent_id text,
  depth smallint not null check (depth between 1 and 10),
  name text,
  type text not null check (type in ('asset', 'liability', 'income', 'expense')),
  currency_mode text not null check (currency_mode in ('single', 'multi')),
  currency_code text,
  custom_currency_id text,
  -- {lines, ownBalanceUpdates, totalBalanceUpdates?, groups: [{key, ownBalanceUpdates}]}
  consistency jsonb not null,
  -- Hash of the creating request: a replayed ik with a different payload is detected, not ignored.
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  -- The external account this account is linked to, if any.
  linked_account_id text,
  constraint ledger_accounts_pkey primary key (workspace_id, id),
  constraint ledger_accounts_ik_key unique (workspace_id, ledger_id, ik),
  constraint ledger_accounts_path_key unique (workspace_id, ledger_id, path),
  constraint ledger_accounts_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id),
  constraint ledger_accounts_parent_fkey foreign key (workspace_id, parent_id) references ledger_accounts (workspace_id, id),
  constraint ledger_accounts_linked_fkey
    foreign key (workspace_id, linked_account_id) references ledger_external_accounts (workspace_id, id),
  constraint ledger_accounts_currency_check check ((currency_mode = 'multi') = (currency_code is null))
);
create index ledger_accounts_newest_idx on ledger_accounts (workspace_id, ledger_id, created desc, id desc);
create index ledger_accounts_children_idx on ledger_accounts (workspace_id, parent_id, created desc, id desc);
create index ledger_accounts_linked_idx on ledger_accounts (workspace_id, linked_account_id, created desc, id desc)
  where linked_account_id is not null;

-------------------------------------------------------------------------------------------------
-- Entries and their append-only lines. Lines are never updated; corrections are reversals
-- (entries sharing the ik, by reversal_position).

create table ledger_entries (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  type text,
  type_version integer,
  parameters jsonb,
  description text,
  posted timestamptz not null,
  created timestamptz not null default date_trunc('milliseconds', clock_timestamp()),
  tags jsonb not null default '[]',
  groups jsonb not null default '[]',
  conditions jsonb not null default '[]',
  reversal_position integer not null default 1,
  reverses_id text,
  reversed_by_id text,
  reversed_at timestamptz,
  -- Hash of the posting request: a replayed ik with a different payload is detected, not ignored.
  request_hash text not null,
  constraint ledger_entries_pkey primary key (workspace_id, id),
  constraint ledger_entries_ik_key unique (workspace_id, ledger_id, ik, reversal_position),
  constraint ledger_entries_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id)
);
create index ledger_entries_posted_idx on ledger_entries (workspace_id, ledger_id, posted desc, id desc);
-- Groups and tags are found by containment (`groups @> '[{"key":..,"value":..}]'`): group
-- lists, group balances and the tag and group filters of entry lists use these indexes.
create index ledger_entries_groups_idx on ledger_entries using gin (groups jsonb_path_ops);
create index ledger_entries_tags_idx on ledger_entries using gin (tags jsonb_path_ops);
-- Entry stats by type and version count reversals apart, so they come from one index.
create index ledger_entries_type_idx on ledger_entries (workspace_id, ledger_id, type, type_version) where type is not null;

create table ledger_lines (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  entry_id text not null,
  position smallint not null,
  account_id text not null,
  currency text not null,
  amount numeric(37, 0) not null,
  key text,
  description text,
  tags jsonb not null default '[]',
  posted timestamptz not null,
  created timestamptz not null,
  constraint ledger_lines_pkey primary key (workspace_id, id),
  constraint ledger_lines_position_key unique (workspace_id, entry_id, position),
  constraint ledger_lines_entry_fkey foreign key (workspace_id, entry_id) references ledger_entries (workspace_id, id),
  constraint ledger_lines_account_fkey foreign key (workspace_id, account_id) references ledger_accounts (workspace_id, id)
);
create index ledger_lines_account_posted_idx on ledger_lines (workspace_id, account_id, posted desc, id desc);

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

-------------------------------------------------------------------------------------------------
-- Balances: each account's current own balance per currency, and its history.
--
-- Every posting's effect on an account is also kept as deltas in calendar buckets of the
-- ledger's local time (hour, day, month and year at its balance_utc_offset). A balance at a
-- moment or a change over a period is then a sum of a few dozen buckets however long the
-- history, and a backdated entry adds to four buckets like any other entry.
--
-- A posting appends its deltas to a queue; a background fold moves them into the buckets in
-- batches. Accounts whose ownBalanceUpdates is strong also update their balance row in the
-- posting, under its lock (conditions need it); eventual ones take no lock at all, and the fold
-- applies their deltas to the balance row too. Reads add the queued deltas, so they see every
-- committed posting either way. (The functions are in src/db/functions/balances.sql.)

-- No Int96 check on own_balance: queued deltas can take a folded balance past ±(2^120 − 1)
-- (nothing locks them), and the fold must never fail. The range is checked where a balance is
-- posted under lock and where it is read.
create table ledger_account_balances (
  workspace_id text not null,
  account_id text not null,
  currency text not null,
  own_balance numeric not null default 0,
  line_count bigint not null default 0,
  constraint ledger_account_balances_pkey primary key (workspace_id, account_id, currency),
  constraint ledger_account_balances_account_fkey foreign key (workspace_id, account_id) references ledger_accounts (workspace_id, id)
);

create table ledger_balance_buckets (
  workspace_id text not null,
  account_id text not null,
  grain text not null check (grain in ('hour', 'day', 'month', 'year')),
  -- Start of the bucket, wall-clock time at the ledger's offset.
  bucket timestamp not null,
  currency text not null,
  amount numeric not null,
  line_count bigint not null,
  constraint ledger_balance_buckets_pkey primary key (workspace_id, account_id, grain, bucket, currency)
);

create table ledger_balance_queue (
  seq bigint generated always as identity primary key,
  workspace_id text not null,
  account_id text not null,
  currency text not null,
  local_hour timestamp not null,
  amount numeric not null,
  line_count integer not null,
  -- True when the posting already added the delta to the balance row (strong updates).
  balance_applied boolean not null,
  enqueued timestamptz not null default clock_timestamp()
);
create index ledger_balance_queue_account_idx on ledger_balance_queue (workspace_id, account_id, currency);

-------------------------------------------------------------------------------------------------
-- Experimental ledger payments: recorded with their client secret, idempotent by ik within the
-- ledger. Tally has no payment processor, so a payment stays where it starts.

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

-------------------------------------------------------------------------------------------------
-- Billing: users and external accounts (created on first reference by the caller's id),
-- invoices with line items and a snapshot per superseded version, transactions with allocations.
-- Money is numeric(37, 0) within ±(2^120 − 1), checked by the server before it is written.

create table billing_users (
  workspace_id text not null references workspaces (id),
  id text not null,
  external_id text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint billing_users_pkey primary key (workspace_id, id),
  constraint billing_users_external_id_key unique (workspace_id, external_id)
);

create table invoices (
  workspace_id text not null references workspaces (id),
  id text not null,
  version integer not null default 1,
  tags jsonb not null default '[]',
  -- The fingerprint of the creating body: the same invoice id with another body is not a replay.
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  modified timestamptz,
  -- Every line-item change since version 1, in order (the history's cumulative diff); null at 1.
  diff jsonb,
  constraint invoices_pkey primary key (workspace_id, id)
);
create index invoices_created_idx on invoices (workspace_id, created, id);

create table invoice_line_items (
  workspace_id text not null,
  invoice_id text not null,
  id text not null,
  -- Line items keep the order they were added in; a deleted one leaves a gap.
  position integer not null,
  type text not null check (type in ('payin', 'payout')),
  product_id text not null,
  user_id text not null,
  description text not null,
  currency text not null,
  unit_price numeric(37, 0) not null check (unit_price >= 0),
  quantity integer not null check (quantity >= 1),
  amount numeric(37, 0) not null check (amount >= 0),
  tags jsonb not null default '[]',
  constraint invoice_line_items_pkey primary key (workspace_id, id),
  constraint invoice_line_items_position_key unique (workspace_id, invoice_id, position),
  foreign key (workspace_id, invoice_id) references invoices (workspace_id, id),
  foreign key (workspace_id, product_id) references products (workspace_id, id),
  foreign key (workspace_id, user_id) references billing_users (workspace_id, id)
);

-- The invoice as it was at each version it has left behind, with the cumulative diff up to that
-- version: written when an update supersedes it, so creating an invoice writes no history. The
-- current version is the invoice itself.
create table invoice_versions (
  workspace_id text not null,
  invoice_id text not null,
  version integer not null,
  snapshot jsonb not null,
  diff jsonb,
  constraint invoice_versions_pkey primary key (workspace_id, invoice_id, version),
  foreign key (workspace_id, invoice_id) references invoices (workspace_id, id)
);

create table external_accounts (
  workspace_id text not null references workspaces (id),
  id text not null,
  external_id text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint external_accounts_pkey primary key (workspace_id, id),
  constraint external_accounts_external_id_key unique (workspace_id, external_id)
);

create table billing_transactions (
  workspace_id text not null references workspaces (id),
  id text not null,
  external_id text not null,
  account_id text not null,
  amount numeric(37, 0) not null,
  currency text not null,
  posted timestamptz not null,
  tags jsonb not null default '[]',
  -- Σ allocation amounts, never above |amount|: reconciled when equal.
  allocated numeric(37, 0) not null default 0 check (allocated >= 0 and allocated <= abs(amount)),
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint billing_transactions_pkey primary key (workspace_id, id),
  constraint billing_transactions_external_id_key unique (workspace_id, external_id),
  foreign key (workspace_id, account_id) references external_accounts (workspace_id, id)
);
create index billing_transactions_posted_idx on billing_transactions (workspace_id, posted, created, id);
create index billing_transactions_account_idx on billing_transactions (workspace_id, account_id, posted, created, id);

create table allocations (
  workspace_id text not null,
  id text not null,
  transaction_id text not null,
  position integer not null,
  invoice_id text not null,
  user_id text not null,
  type text not null check (type in ('invoice_payin', 'invoice_payout')),
  amount numeric(37, 0) not null check (amount >= 0),
  constraint allocations_pkey primary key (workspace_id, id),
  constraint allocations_position_key unique (workspace_id, transaction_id, position),
  foreign key (workspace_id, transaction_id) references billing_transactions (workspace_id, id),
  foreign key (workspace_id, invoice_id) references invoices (workspace_id, id),
  foreign key (workspace_id, user_id) references billing_users (workspace_id, id)
);
create index allocations_invoice_idx on allocations (workspace_id, invoice_id);

-------------------------------------------------------------------------------------------------
-- Payment flows (experimental): a flow settles one invoice through a plan of payments, generated
-- when the flow is created and again (a new plan version) whenever the invoice's line items
-- change. A payment completes, for good, when a synced allocation or an invoice change brings
-- its user's remaining amount to zero or less; batch and flow statuses follow on read.

create table payment_accounts (
  workspace_id text not null,
  id text not null,
  user_id text not null,
  currency text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint payment_accounts_pkey primary key (workspace_id, id),
  constraint payment_accounts_user_currency_key unique (workspace_id, user_id, currency),
  foreign key (workspace_id, user_id) references billing_users (workspace_id, id)
);

create table payment_flows (
  workspace_id text not null references workspaces (id),
  id text not null,
  external_id text not null,
  invoice_id text not null,
  type text not null,
  request_hash text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  plan_version integer not null default 1,
  generated_at timestamptz not null default date_trunc('milliseconds', now()),
  constraint payment_flows_pkey primary key (workspace_id, id),
  constraint payment_flows_external_id_key unique (workspace_id, external_id),
  foreign key (workspace_id, invoice_id) references invoices (workspace_id, id)
);
create index payment_flows_created_idx on payment_flows (workspace_id, created, id);
create index payment_flows_invoice_idx on payment_flows (workspace_id, invoice_id, created, id);

create table payments (
  workspace_id text not null,
  id text not null,
  flow_id text not null,
  batch integer not null check (batch >= 1),
  position integer not null,
  direction text not null check (direction in ('inbound', 'outbound')),
  user_id text not null,
  currency text not null,
  amount numeric(37, 0) not null check (amount > 0),
  payment_account_id text not null,
  created timestamptz not null,
  -- Last change of amount or status; completed_at, once set, never changes.
  modified timestamptz not null,
  completed_at timestamptz,
  constraint payments_pkey primary key (workspace_id, id),
  constraint payments_position_key unique (workspace_id, flow_id, position),
  foreign key (workspace_id, flow_id) references payment_flows (workspace_id, id),
  foreign key (workspace_id, payment_account_id) references payment_accounts (workspace_id, id)
);
create index payments_created_idx on payments (workspace_id, created, id);
