-- The schema that src/db/migrations/ and src/db/functions/ build in an empty database, read
-- from the catalogs by test/db/schemaDump.ts; test/db/schema.test.ts checks they still build it.
-- Generated: do not edit. Regenerate with `node --import tsx/esm test/db/schemaDump.ts`.

create table allocations (
  workspace_id text not null,
  id text not null,
  transaction_id text not null,
  position integer not null,
  invoice_id text not null,
  user_id text not null,
  type text not null,
  amount numeric(37,0) not null
);

create table api_clients (
  client_id text not null,
  workspace_id text not null,
  secret_hash text not null,
  name text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table billing_roles (
  workspace_id text not null,
  id text not null,
  name text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table billing_transactions (
  workspace_id text not null,
  id text not null,
  external_id text not null,
  account_id text not null,
  amount numeric(37,0) not null,
  currency text not null,
  posted timestamp with time zone not null,
  tags jsonb default '[]'::jsonb not null,
  allocated numeric(37,0) default 0 not null,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table billing_users (
  workspace_id text not null,
  id text not null,
  external_id text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table external_accounts (
  workspace_id text not null,
  id text not null,
  external_id text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table invoice_line_items (
  workspace_id text not null,
  invoice_id text not null,
  id text not null,
  position integer not null,
  type text not null,
  product_id text not null,
  user_id text not null,
  description text not null,
  currency text not null,
  unit_price numeric(37,0) not null,
  quantity integer not null,
  amount numeric(37,0) not null,
  tags jsonb default '[]'::jsonb not null
);

create table invoice_versions (
  workspace_id text not null,
  invoice_id text not null,
  version integer not null,
  snapshot jsonb not null,
  diff jsonb
);

create table invoices (
  workspace_id text not null,
  id text not null,
  version integer default 1 not null,
  tags jsonb default '[]'::jsonb not null,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null,
  modified timestamp with time zone,
  diff jsonb
);

create table ledger_account_balances (
  workspace_id text not null,
  account_id text not null,
  currency text not null,
  own_balance numeric default 0 not null,
  line_count bigint default 0 not null,
  open_hour timestamp without time zone,
  open_amount numeric default 0 not null,
  open_lines bigint default 0 not null
);

create table ledger_accounts (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  path text not null,
  parent_id text,
  depth smallint not null,
  name text,
  type text not null,
  currency_mode text not null,
  currency_code text,
  custom_currency_id text,
  consistency jsonb not null,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null,
  linked_account_id text
);

create table ledger_balance_buckets (
  workspace_id text not null,
  account_id text not null,
  grain text not null,
  bucket timestamp without time zone not null,
  currency text not null,
  amount numeric not null,
  line_count bigint not null
);

create table ledger_balance_queue (
  seq bigint generated always as identity not null,
  workspace_id text not null,
  account_id text not null,
  currency text not null,
  local_hour timestamp without time zone not null,
  amount numeric not null,
  line_count integer not null,
  balance_applied boolean not null,
  enqueued timestamp with time zone default clock_timestamp() not null
);

create table ledger_custom_currencies (
  workspace_id text not null,
  id text not null,
  custom_code text not null,
  name text not null,
  precision integer not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table ledger_data_migrations (
  workspace_id text not null,
  ledger_id text not null,
  kind text not null,
  subject text not null,
  entry_type text,
  type_version integer,
  account_path text,
  schema_version integer not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table ledger_entries (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  type text,
  type_version integer,
  parameters jsonb,
  description text,
  posted timestamp with time zone not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null,
  tags jsonb default '[]'::jsonb not null,
  groups jsonb default '[]'::jsonb not null,
  conditions jsonb default '[]'::jsonb not null,
  reversal_position integer default 1 not null,
  reverses_id text,
  reversed_by_id text,
  reversed_at timestamp with time zone,
  request_hash text not null
);

create table ledger_external_accounts (
  workspace_id text not null,
  id text not null,
  link_id text not null,
  external_id text not null,
  name text not null,
  currency_mode text not null,
  currency text,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table ledger_external_txs (
  workspace_id text not null,
  id text not null,
  link_id text not null,
  account_id text not null,
  external_id text not null,
  sequence integer not null,
  amount numeric(37,0) not null,
  currency text not null,
  description text not null,
  posted timestamp with time zone not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null,
  deleted_at timestamp with time zone
);

create table ledger_lines (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  entry_id text not null,
  position smallint not null,
  account_id text not null,
  currency text not null,
  amount numeric(37,0) not null,
  key text,
  description text,
  tags jsonb default '[]'::jsonb not null,
  posted timestamp with time zone not null,
  created timestamp with time zone not null
);

create table ledger_links (
  workspace_id text not null,
  id text not null,
  ik text not null,
  name text not null,
  kind text default 'custom'::text not null,
  provider_env text,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table ledger_migrations (
  workspace_id text not null,
  ledger_id text not null,
  schema_key text not null,
  schema_version integer not null,
  status text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table ledger_payments (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  type text,
  type_version integer,
  parameters jsonb,
  amount numeric(37,0) not null,
  status text not null,
  client_secret text not null,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table ledger_reconciliations (
  workspace_id text not null,
  entry_id text not null,
  position smallint not null,
  tx_id text not null,
  account_id text not null
);

create table ledger_schema_versions (
  workspace_id text not null,
  schema_key text not null,
  version integer not null,
  content jsonb not null,
  content_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table ledger_schemas (
  workspace_id text not null,
  key text not null,
  name text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table ledgers (
  workspace_id text not null,
  id text not null,
  ik text not null,
  name text not null,
  type text default 'double'::text not null,
  balance_utc_offset text default '+00:00'::text not null,
  schema_key text,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null,
  deleted_at timestamp with time zone,
  schema_version integer,
  posting_revision bigint default 0 not null
);

create table payment_accounts (
  workspace_id text not null,
  id text not null,
  user_id text not null,
  currency text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table payment_flows (
  workspace_id text not null,
  id text not null,
  external_id text not null,
  invoice_id text not null,
  type text not null,
  request_hash text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null,
  plan_version integer default 1 not null,
  generated_at timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table payments (
  workspace_id text not null,
  id text not null,
  flow_id text not null,
  batch integer not null,
  position integer not null,
  direction text not null,
  user_id text not null,
  currency text not null,
  amount numeric(37,0) not null,
  payment_account_id text not null,
  created timestamp with time zone not null,
  modified timestamp with time zone not null,
  completed_at timestamp with time zone
);

create table products (
  workspace_id text not null,
  id text not null,
  code text not null,
  description text not null,
  update_version integer default 1 not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null,
  request_hash text,
  paid_by_roles jsonb default '[]'::jsonb not null,
  paid_to_roles jsonb default '[]'::jsonb not null
);

create table sandbox_clocks (
  workspace_id text not null,
  frozen boolean not null,
  base timestamp with time zone not null,
  set_at timestamp with time zone not null
);

create table sandbox_fold_holds (
  workspace_id text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table sandbox_snapshots (
  workspace_id text not null,
  name text not null,
  id text not null,
  layout text not null,
  row_count bigint not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, clock_timestamp()) not null
);

create table server_secrets (
  name text not null,
  value bytea not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

create table workspaces (
  id text not null,
  name text not null,
  created timestamp with time zone default date_trunc('milliseconds'::text, now()) not null
);

alter table allocations add constraint allocations_pkey PRIMARY KEY (workspace_id, id);
alter table api_clients add constraint api_clients_pkey PRIMARY KEY (client_id);
alter table billing_roles add constraint billing_roles_pkey PRIMARY KEY (workspace_id, id);
alter table billing_transactions add constraint billing_transactions_pkey PRIMARY KEY (workspace_id, id);
alter table billing_users add constraint billing_users_pkey PRIMARY KEY (workspace_id, id);
alter table external_accounts add constraint external_accounts_pkey PRIMARY KEY (workspace_id, id);
alter table invoice_line_items add constraint invoice_line_items_pkey PRIMARY KEY (workspace_id, invoice_id, "position");
alter table invoice_versions add constraint invoice_versions_pkey PRIMARY KEY (workspace_id, invoice_id, version);
alter table invoices add constraint invoices_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_account_balances add constraint ledger_account_balances_pkey PRIMARY KEY (workspace_id, account_id, currency);
alter table ledger_accounts add constraint ledger_accounts_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_balance_buckets add constraint ledger_balance_buckets_pkey PRIMARY KEY (workspace_id, account_id, grain, bucket, currency);
alter table ledger_balance_queue add constraint ledger_balance_queue_pkey PRIMARY KEY (seq);
alter table ledger_custom_currencies add constraint ledger_custom_currencies_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_data_migrations add constraint ledger_data_migrations_pkey PRIMARY KEY (workspace_id, ledger_id, kind, subject);
alter table ledger_entries add constraint ledger_entries_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_external_accounts add constraint ledger_external_accounts_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_external_txs add constraint ledger_external_txs_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_lines add constraint ledger_lines_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_links add constraint ledger_links_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_migrations add constraint ledger_migrations_pkey PRIMARY KEY (workspace_id, ledger_id, schema_version);
alter table ledger_payments add constraint ledger_payments_pkey PRIMARY KEY (workspace_id, id);
alter table ledger_reconciliations add constraint ledger_reconciliations_pkey PRIMARY KEY (workspace_id, entry_id, "position");
alter table ledger_schema_versions add constraint ledger_schema_versions_pkey PRIMARY KEY (workspace_id, schema_key, version);
alter table ledger_schemas add constraint ledger_schemas_pkey PRIMARY KEY (workspace_id, key);
alter table ledgers add constraint ledgers_pkey PRIMARY KEY (workspace_id, id);
alter table payment_accounts add constraint payment_accounts_pkey PRIMARY KEY (workspace_id, id);
alter table payment_flows add constraint payment_flows_pkey PRIMARY KEY (workspace_id, id);
alter table payments add constraint payments_pkey PRIMARY KEY (workspace_id, id);
alter table products add constraint products_pkey PRIMARY KEY (workspace_id, id);
alter table sandbox_clocks add constraint sandbox_clocks_pkey PRIMARY KEY (workspace_id);
alter table sandbox_fold_holds add constraint sandbox_fold_holds_pkey PRIMARY KEY (workspace_id);
alter table sandbox_snapshots add constraint sandbox_snapshots_pkey PRIMARY KEY (workspace_id, name);
alter table server_secrets add constraint server_secrets_pkey PRIMARY KEY (name);
alter table workspaces add constraint workspaces_pkey PRIMARY KEY (id);
alter table allocations add constraint allocations_position_key UNIQUE (workspace_id, transaction_id, "position");
alter table billing_roles add constraint billing_roles_name_key UNIQUE (workspace_id, name);
alter table billing_transactions add constraint billing_transactions_external_id_key UNIQUE (workspace_id, external_id);
alter table billing_users add constraint billing_users_external_id_key UNIQUE (workspace_id, external_id);
alter table external_accounts add constraint external_accounts_external_id_key UNIQUE (workspace_id, external_id);
alter table ledger_accounts add constraint ledger_accounts_ik_key UNIQUE (workspace_id, ledger_id, ik);
alter table ledger_accounts add constraint ledger_accounts_path_key UNIQUE (workspace_id, ledger_id, path);
alter table ledger_entries add constraint ledger_entries_ik_key UNIQUE (workspace_id, ledger_id, ik, reversal_position);
alter table ledger_external_accounts add constraint ledger_external_accounts_external_id_key UNIQUE (workspace_id, link_id, external_id);
alter table ledger_external_txs add constraint ledger_external_txs_sequence_key UNIQUE (workspace_id, account_id, external_id, sequence);
alter table ledger_lines add constraint ledger_lines_position_key UNIQUE (workspace_id, entry_id, "position");
alter table ledger_links add constraint ledger_links_ik_key UNIQUE (workspace_id, ik);
alter table ledger_payments add constraint ledger_payments_ik_key UNIQUE (workspace_id, ledger_id, ik);
alter table payment_accounts add constraint payment_accounts_user_currency_key UNIQUE (workspace_id, user_id, currency);
alter table payment_flows add constraint payment_flows_external_id_key UNIQUE (workspace_id, external_id);
alter table payments add constraint payments_position_key UNIQUE (workspace_id, flow_id, "position");
alter table products add constraint products_code_key UNIQUE (workspace_id, code);
alter table sandbox_snapshots add constraint sandbox_snapshots_id_key UNIQUE (id);
alter table allocations add constraint allocations_amount_check CHECK ((amount >= (0)::numeric));
alter table allocations add constraint allocations_type_check CHECK ((type = ANY (ARRAY['invoice_payin'::text, 'invoice_payout'::text])));
alter table billing_transactions add constraint billing_transactions_check CHECK (((allocated >= (0)::numeric) AND (allocated <= abs(amount))));
alter table invoice_line_items add constraint invoice_line_items_amount_check CHECK ((amount >= (0)::numeric));
alter table invoice_line_items add constraint invoice_line_items_quantity_check CHECK ((quantity >= 1));
alter table invoice_line_items add constraint invoice_line_items_type_check CHECK ((type = ANY (ARRAY['payin'::text, 'payout'::text])));
alter table invoice_line_items add constraint invoice_line_items_unit_price_check CHECK ((unit_price >= (0)::numeric));
alter table ledger_accounts add constraint ledger_accounts_currency_check CHECK (((currency_mode = 'multi'::text) = (currency_code IS NULL)));
alter table ledger_accounts add constraint ledger_accounts_currency_mode_check CHECK ((currency_mode = ANY (ARRAY['single'::text, 'multi'::text])));
alter table ledger_accounts add constraint ledger_accounts_depth_check CHECK (((depth >= 1) AND (depth <= 10)));
alter table ledger_accounts add constraint ledger_accounts_type_check CHECK ((type = ANY (ARRAY['asset'::text, 'liability'::text, 'income'::text, 'expense'::text])));
alter table ledger_balance_buckets add constraint ledger_balance_buckets_grain_check CHECK ((grain = ANY (ARRAY['hour'::text, 'day'::text, 'month'::text, 'year'::text])));
alter table ledger_data_migrations add constraint ledger_data_migrations_kind_check CHECK ((kind = ANY (ARRAY['entry'::text, 'account'::text])));
alter table ledger_external_accounts add constraint ledger_external_accounts_currency_check CHECK (((currency_mode = 'multi'::text) = (currency IS NULL)));
alter table ledger_external_accounts add constraint ledger_external_accounts_currency_mode_check CHECK ((currency_mode = ANY (ARRAY['single'::text, 'multi'::text])));
alter table ledger_external_txs add constraint ledger_external_txs_sequence_check CHECK ((sequence >= 1));
alter table ledger_links add constraint ledger_links_kind_check CHECK ((kind = ANY (ARRAY['custom'::text, 'provider'::text])));
alter table ledger_migrations add constraint ledger_migrations_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'started'::text, 'completed'::text, 'failed'::text, 'skipped'::text])));
alter table ledger_schema_versions add constraint ledger_schema_versions_version_check CHECK ((version >= 1));
alter table ledgers add constraint ledgers_schema_version_check CHECK ((schema_version >= 1));
alter table ledgers add constraint ledgers_type_check CHECK ((type = 'double'::text));
alter table payments add constraint payments_amount_check CHECK ((amount > (0)::numeric));
alter table payments add constraint payments_batch_check CHECK ((batch >= 1));
alter table payments add constraint payments_direction_check CHECK ((direction = ANY (ARRAY['inbound'::text, 'outbound'::text])));
alter table api_clients add constraint api_clients_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table billing_roles add constraint billing_roles_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table invoice_versions add constraint invoice_versions_workspace_id_invoice_id_fkey FOREIGN KEY (workspace_id, invoice_id) REFERENCES invoices(workspace_id, id);
alter table ledger_account_balances add constraint ledger_account_balances_account_fkey FOREIGN KEY (workspace_id, account_id) REFERENCES ledger_accounts(workspace_id, id);
alter table ledger_accounts add constraint ledger_accounts_ledger_fkey FOREIGN KEY (workspace_id, ledger_id) REFERENCES ledgers(workspace_id, id);
alter table ledger_accounts add constraint ledger_accounts_linked_fkey FOREIGN KEY (workspace_id, linked_account_id) REFERENCES ledger_external_accounts(workspace_id, id);
alter table ledger_accounts add constraint ledger_accounts_parent_fkey FOREIGN KEY (workspace_id, parent_id) REFERENCES ledger_accounts(workspace_id, id);
alter table ledger_custom_currencies add constraint ledger_custom_currencies_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table ledger_data_migrations add constraint ledger_data_migrations_ledger_fkey FOREIGN KEY (workspace_id, ledger_id) REFERENCES ledgers(workspace_id, id);
alter table ledger_external_accounts add constraint ledger_external_accounts_link_fkey FOREIGN KEY (workspace_id, link_id) REFERENCES ledger_links(workspace_id, id);
alter table ledger_external_txs add constraint ledger_external_txs_account_fkey FOREIGN KEY (workspace_id, account_id) REFERENCES ledger_external_accounts(workspace_id, id);
alter table ledger_links add constraint ledger_links_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table ledger_migrations add constraint ledger_migrations_ledger_fkey FOREIGN KEY (workspace_id, ledger_id) REFERENCES ledgers(workspace_id, id);
alter table ledger_payments add constraint ledger_payments_ledger_fkey FOREIGN KEY (workspace_id, ledger_id) REFERENCES ledgers(workspace_id, id);
alter table ledger_reconciliations add constraint ledger_reconciliations_entry_fkey FOREIGN KEY (workspace_id, entry_id) REFERENCES ledger_entries(workspace_id, id);
alter table ledger_reconciliations add constraint ledger_reconciliations_tx_fkey FOREIGN KEY (workspace_id, tx_id) REFERENCES ledger_external_txs(workspace_id, id);
alter table ledger_schema_versions add constraint ledger_schema_versions_workspace_id_schema_key_fkey FOREIGN KEY (workspace_id, schema_key) REFERENCES ledger_schemas(workspace_id, key);
alter table ledger_schemas add constraint ledger_schemas_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table ledgers add constraint ledgers_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table ledgers add constraint ledgers_workspace_id_schema_key_fkey FOREIGN KEY (workspace_id, schema_key) REFERENCES ledger_schemas(workspace_id, key);
alter table payment_accounts add constraint payment_accounts_workspace_id_user_id_fkey FOREIGN KEY (workspace_id, user_id) REFERENCES billing_users(workspace_id, id);
alter table payment_flows add constraint payment_flows_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table payment_flows add constraint payment_flows_workspace_id_invoice_id_fkey FOREIGN KEY (workspace_id, invoice_id) REFERENCES invoices(workspace_id, id);
alter table payments add constraint payments_workspace_id_flow_id_fkey FOREIGN KEY (workspace_id, flow_id) REFERENCES payment_flows(workspace_id, id);
alter table payments add constraint payments_workspace_id_payment_account_id_fkey FOREIGN KEY (workspace_id, payment_account_id) REFERENCES payment_accounts(workspace_id, id);
alter table products add constraint products_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table sandbox_clocks add constraint sandbox_clocks_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table sandbox_fold_holds add constraint sandbox_fold_holds_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);
alter table sandbox_snapshots add constraint sandbox_snapshots_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces(id);

CREATE INDEX allocations_invoice_idx ON public.allocations USING btree (workspace_id, invoice_id);
CREATE INDEX api_clients_workspace_idx ON public.api_clients USING btree (workspace_id);
CREATE INDEX billing_transactions_account_idx ON public.billing_transactions USING btree (workspace_id, account_id, posted, created, id);
CREATE INDEX billing_transactions_posted_idx ON public.billing_transactions USING btree (workspace_id, posted, created, id);
CREATE INDEX invoices_created_idx ON public.invoices USING btree (workspace_id, created, id);
CREATE INDEX ledger_accounts_children_idx ON public.ledger_accounts USING btree (workspace_id, parent_id, created DESC, id DESC);
CREATE INDEX ledger_accounts_linked_idx ON public.ledger_accounts USING btree (workspace_id, linked_account_id, created DESC, id DESC) WHERE (linked_account_id IS NOT NULL);
CREATE INDEX ledger_accounts_newest_idx ON public.ledger_accounts USING btree (workspace_id, ledger_id, created DESC, id DESC);
CREATE INDEX ledger_balance_queue_account_idx ON public.ledger_balance_queue USING btree (workspace_id, account_id, currency);
CREATE INDEX ledger_custom_currencies_newest_idx ON public.ledger_custom_currencies USING btree (workspace_id, created DESC, id DESC);
CREATE INDEX ledger_entries_groups_idx ON public.ledger_entries USING gin (groups jsonb_path_ops) WHERE (groups <> '[]'::jsonb);
CREATE INDEX ledger_entries_posted_idx ON public.ledger_entries USING btree (workspace_id, ledger_id, posted DESC, id DESC);
CREATE INDEX ledger_entries_tags_idx ON public.ledger_entries USING gin (tags jsonb_path_ops) WHERE (tags <> '[]'::jsonb);
CREATE INDEX ledger_entries_type_idx ON public.ledger_entries USING btree (workspace_id, ledger_id, type, type_version) WHERE (type IS NOT NULL);
CREATE INDEX ledger_external_accounts_newest_idx ON public.ledger_external_accounts USING btree (workspace_id, link_id, created DESC, id DESC);
CREATE UNIQUE INDEX ledger_external_txs_live_key ON public.ledger_external_txs USING btree (workspace_id, account_id, external_id) WHERE (deleted_at IS NULL);
CREATE INDEX ledger_external_txs_posted_idx ON public.ledger_external_txs USING btree (workspace_id, account_id, posted DESC, id DESC) WHERE (deleted_at IS NULL);
CREATE INDEX ledger_lines_account_posted_idx ON public.ledger_lines USING btree (workspace_id, account_id, posted DESC, id DESC);
CREATE INDEX ledger_links_newest_idx ON public.ledger_links USING btree (workspace_id, created DESC, id DESC);
CREATE INDEX ledger_migrations_version_idx ON public.ledger_migrations USING btree (workspace_id, schema_key, schema_version);
CREATE INDEX ledger_reconciliations_account_idx ON public.ledger_reconciliations USING btree (workspace_id, account_id, tx_id);
CREATE INDEX ledger_reconciliations_tx_idx ON public.ledger_reconciliations USING btree (workspace_id, tx_id, account_id);
CREATE UNIQUE INDEX ledgers_ik_key ON public.ledgers USING btree (workspace_id, ik) WHERE (deleted_at IS NULL);
CREATE INDEX ledgers_newest_idx ON public.ledgers USING btree (workspace_id, created DESC, id DESC) WHERE (deleted_at IS NULL);
CREATE INDEX payment_flows_created_idx ON public.payment_flows USING btree (workspace_id, created, id);
CREATE INDEX payment_flows_invoice_idx ON public.payment_flows USING btree (workspace_id, invoice_id, created, id);
CREATE INDEX payments_created_idx ON public.payments USING btree (workspace_id, created, id);

create sequence ledger_posting_revisions as bigint start 1 increment 1;
CREATE TRIGGER ledger_accounts_deleted AFTER DELETE ON public.ledger_accounts REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION renew_posting_revisions_of_accounts();
CREATE TRIGGER ledger_accounts_updated AFTER UPDATE ON public.ledger_accounts REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION renew_posting_revisions_of_accounts();
CREATE TRIGGER ledgers_posting_revision BEFORE INSERT OR UPDATE ON public.ledgers FOR EACH ROW EXECUTE FUNCTION renew_ledger_posting_revision();
CREATE OR REPLACE FUNCTION public.add_to_balance_rows(p_workspace_ids text[], p_account_ids text[], p_currencies text[], p_hours timestamp without time zone[], p_amounts numeric[], p_lines bigint[])
 RETURNS TABLE(account_id text, currency text, own_balance numeric)
 LANGUAGE sql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
  with delta as (
    select t.workspace_id, t.account_id, t.currency, t.hour, sum(t.amount) as amount, sum(t.lines) as lines,
           t.hour = max(t.hour) over (partition by t.workspace_id, t.account_id, t.currency) as latest
    from unnest(p_workspace_ids, p_account_ids, p_currencies, p_hours, p_amounts, p_lines)
      as t(workspace_id, account_id, currency, hour, amount, lines)
    group by t.workspace_id, t.account_id, t.currency, t.hour
  ), per_row as (
    select d.workspace_id, d.account_id, d.currency, sum(d.amount) as amount, sum(d.lines) as lines, max(d.hour) as hour,
           sum(d.amount) filter (where d.latest) as hour_amount, sum(d.lines) filter (where d.latest) as hour_lines
    from delta d
    group by d.workspace_id, d.account_id, d.currency
  ), updated as (
    insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count,
                                              open_hour, open_amount, open_lines)
    select r.workspace_id, r.account_id, r.currency, r.amount, r.lines, r.hour, r.hour_amount, r.hour_lines
    from per_row r
    order by r.account_id, r.currency
    on conflict (workspace_id, account_id, currency) do update set
      own_balance = b.own_balance + excluded.own_balance,
      line_count = b.line_count + excluded.line_count,
      open_hour = excluded.open_hour,
      open_amount = case when b.open_hour = excluded.open_hour then b.open_amount + excluded.open_amount
                         else excluded.open_amount end,
      open_lines = case when b.open_hour = excluded.open_hour then b.open_lines + excluded.open_lines
                        else excluded.open_lines end
    returning b.workspace_id, b.account_id, b.currency, new.own_balance, new.open_hour,
              old.open_hour as closed_hour, old.open_amount as closed_amount, old.open_lines as closed_lines
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select u.workspace_id, u.account_id, u.currency, u.closed_hour, u.closed_amount, u.closed_lines, true
    from updated u
    where u.closed_hour <> u.open_hour and u.closed_lines > 0
    union all
    select d.workspace_id, d.account_id, d.currency, d.hour, d.amount, d.lines, true
    from delta d
    where not d.latest
  )
  select u.account_id, u.currency, u.own_balance from updated u
$function$;

CREATE OR REPLACE FUNCTION public.apply_balance_deltas(p_workspace_id text, p_ledger_id text, p_posted timestamp with time zone, p_account_ids text[], p_currencies text[], p_amounts numeric[], p_bounded_account_ids text[])
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
declare
  v_accounts text[];
  v_currencies text[];
  v_deltas numeric[];
  v_applied boolean[];
  v_balances jsonb;
  v_out_of_range boolean;
begin
  -- One statement: the accounts' configuration is read once, and the queue rows and the balance
  -- rows are written from that same reading.
  with deltas as (
    select t.account_id, t.currency, sum(t.amount) as delta, count(*)::integer as lines
    from unnest(p_account_ids, p_currencies, p_amounts) as t(account_id, currency, amount)
    group by t.account_id, t.currency
  ), decided as (
    select d.*, ledger_local_hour(p_posted, l.balance_utc_offset) as local_hour,
           coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual'
             or d.account_id = any(coalesce(p_bounded_account_ids, '{}')) as applied
    from deltas d
    join ledgers l on l.workspace_id = p_workspace_id and l.id = p_ledger_id
    left join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = d.account_id
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select p_workspace_id, d.account_id, d.currency, d.local_hour, d.delta, d.lines, false
    from decided d where not d.applied
  ), updated as (
    select u.*
    from (select array_agg(p_workspace_id) as workspace_ids, array_agg(d.account_id) as account_ids,
                 array_agg(d.currency) as currencies, array_agg(d.local_hour) as hours, array_agg(d.delta) as amounts,
                 array_agg(d.lines::bigint) as lines
          from decided d where d.applied) h
    cross join lateral add_to_balance_rows(h.workspace_ids, h.account_ids, h.currencies, h.hours, h.amounts, h.lines) u
  )
  select (select jsonb_object_agg(u.account_id || '|' || u.currency, jsonb_build_array(u.own_balance::text, d.delta::text))
          from updated u join decided d on d.account_id = u.account_id and d.currency = u.currency),
         coalesce((select bool_or(abs(u.own_balance) > int96_max()) from updated u), false),
         array_agg(d.account_id), array_agg(d.currency), array_agg(d.delta), array_agg(d.applied)
  into v_balances, v_out_of_range, v_accounts, v_currencies, v_deltas, v_applied
  from decided d;

  -- Bounded rows and queued-only rows add the deltas not yet in their balance row, read in a new
  -- statement (so after the locks above): postings to eventual accounts take no lock, so for
  -- them this is a best-effort check of the Int96 range.
  if p_bounded_account_ids is not null or not (true = all(v_applied)) then
    select coalesce(v_balances, '{}') || coalesce(jsonb_object_agg(t.account_id || '|' || t.currency,
             jsonb_build_array(s.balance::text, t.delta::text)) filter (where t.account_id = any(coalesce(p_bounded_account_ids, '{}'))), '{}'),
           v_out_of_range or coalesce(bool_or(abs(s.balance) > int96_max()), false)
    into v_balances, v_out_of_range
    from unnest(v_accounts, v_currencies, v_deltas, v_applied) as t(account_id, currency, delta, applied)
    cross join lateral (
      select coalesce((select b.own_balance from ledger_account_balances b
                       where b.workspace_id = p_workspace_id and b.account_id = t.account_id and b.currency = t.currency), 0)
           + coalesce((select sum(q.amount) from ledger_balance_queue q
                       where q.workspace_id = p_workspace_id and q.account_id = t.account_id and q.currency = t.currency
                         and not q.balance_applied), 0) as balance
    ) s
    where not t.applied or t.account_id = any(coalesce(p_bounded_account_ids, '{}'));
  end if;
  if v_out_of_range then
    raise exception using errcode = 'TL002', message = 'balance_out_of_range';
  end if;
  return coalesce(v_balances, '{}');
end
$function$;

CREATE OR REPLACE FUNCTION public.change_invoice(p_workspace_id text, p_invoice_id text, p_based_on integer, p_tags jsonb, p_diff jsonb, p_snapshot jsonb, p_previous_diff jsonb, p_updates jsonb, p_deletes text[], p_creates jsonb)
 RETURNS SETOF invoices
 LANGUAGE plpgsql
AS $function$
declare
  v_row invoices;
  v_version text;
begin
  update invoices i set version = i.version + 1, tags = p_tags, diff = p_diff, modified = workspace_now(p_workspace_id)
  where i.workspace_id = p_workspace_id and i.id = p_invoice_id and i.version = p_based_on
  returning i.* into v_row;
  if v_row.id is null then
    select coalesce(max(i.version)::text, '') into v_version from invoices i
    where i.workspace_id = p_workspace_id and i.id = p_invoice_id;
    raise exception using errcode = 'TL011', message = 'version_conflict', detail = v_version;
  end if;
  insert into invoice_versions (workspace_id, invoice_id, version, snapshot, diff)
  values (p_workspace_id, p_invoice_id, p_based_on, p_snapshot, p_previous_diff);

  if jsonb_array_length(p_updates) > 0 then
    update invoice_line_items li set description = t.description, unit_price = t.unit_price, quantity = t.quantity,
      amount = t.amount, tags = t.tags
    from jsonb_to_recordset(p_updates) as t(id text, description text, unit_price numeric, quantity integer, amount numeric, tags jsonb)
    where li.workspace_id = p_workspace_id and li.invoice_id = p_invoice_id and li.id = t.id;
  end if;
  if cardinality(p_deletes) > 0 then
    delete from invoice_line_items li
    where li.workspace_id = p_workspace_id and li.invoice_id = p_invoice_id and li.id = any(p_deletes);
  end if;
  if jsonb_array_length(p_creates) > 0 then
    insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency,
                                    unit_price, quantity, amount, tags)
    select p_workspace_id, p_invoice_id, t.id, t.position, t.type, t.product_id, t.user_id, t.description, t.currency,
           t.unit_price, t.quantity, t.amount, t.tags
    from jsonb_to_recordset(p_creates) as t(id text, position integer, type text, product_id text, user_id text,
                                            description text, currency text, unit_price numeric, quantity integer,
                                            amount numeric, tags jsonb);
  end if;
  return next v_row;
end
$function$;

CREATE OR REPLACE FUNCTION public.chart_path_pattern(p_chart_path text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select '^' || string_agg(regexp_replace(s.segment, '([.^$*+?()\[\]{}|\\-])', '\\\1', 'g') || '(:[^/]+)?', '/' order by s.n) || '$'
  from unnest(string_to_array(p_chart_path, '/')) with ordinality as s(segment, n)
$function$;

CREATE OR REPLACE FUNCTION public.close_open_hours(p_workspace_id text)
 RETURNS integer
 LANGUAGE sql
AS $function$
  with open as (
    select b.account_id, b.currency from ledger_account_balances b
    where b.workspace_id = p_workspace_id and b.open_hour is not null
    order by b.account_id, b.currency
    for update
  ), closed as (
    update ledger_account_balances b set open_hour = null, open_amount = 0, open_lines = 0
    from open o
    where b.workspace_id = p_workspace_id and b.account_id = o.account_id and b.currency = o.currency
      and b.open_hour is not null
    returning b.workspace_id, b.account_id, b.currency, old.open_hour, old.open_amount, old.open_lines
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select c.workspace_id, c.account_id, c.currency, c.open_hour, c.open_amount, c.open_lines, true from closed c
    returning 1
  )
  select count(*)::integer from queued
$function$;

CREATE OR REPLACE FUNCTION public.condition_holds(p_balance numeric, p_condition jsonb)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select p_condition is null or jsonb_typeof(p_condition) = 'null' or (
    (p_condition->>'eq' is null or p_balance = (p_condition->>'eq')::numeric) and
    (p_condition->>'gte' is null or p_balance >= (p_condition->>'gte')::numeric) and
    (p_condition->>'lte' is null or p_balance <= (p_condition->>'lte')::numeric))
$function$;

CREATE OR REPLACE FUNCTION public.create_invoice(p_workspace_id text, p_invoice_id text, p_tags jsonb, p_request_hash text, p_items jsonb)
 RETURNS TABLE(outcome text, invoice_created timestamp with time zone, user_ids text[], user_external_ids text[], product_ids text[], product_codes text[])
 LANGUAGE plpgsql
AS $function$
declare
  v_created timestamptz;
  v_missing jsonb;
  v_products jsonb;
  v_users jsonb;
begin
  insert into invoices (workspace_id, id, tags, request_hash) values (p_workspace_id, p_invoice_id, p_tags, p_request_hash)
  on conflict (workspace_id, id) do nothing
  returning created into v_created;
  if v_created is null then
    return query select 'taken'::text, null::timestamptz, null::text[], null::text[], null::text[], null::text[];
    return;
  end if;

  -- Each product reference → [id, code]; a code match wins over an id match.
  select coalesce(jsonb_object_agg(r.ref, jsonb_build_array(p.id, p.code)) filter (where p.id is not null), '{}') into v_products
  from (select distinct i->>'product_ref' as ref from jsonb_array_elements(p_items) i) r
  left join lateral (
    select pr.id, pr.code from products pr where pr.workspace_id = p_workspace_id and (pr.code = r.ref or pr.id = r.ref)
    order by (pr.code = r.ref) desc limit 1
  ) p on true;
  select jsonb_agg(n - 1 order by n) into v_missing
  from jsonb_array_elements(p_items) with ordinality as t(i, n) where not v_products ? (i->>'product_ref');
  if v_missing is not null then
    raise exception using errcode = 'TL003', message = 'unknown_product', detail = v_missing::text;
  end if;

  perform require_billing_users(p_workspace_id, p_items);
  v_users := ensure_billing_users(p_workspace_id, p_items);

  insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency,
                                  unit_price, quantity, amount, tags)
  select p_workspace_id, p_invoice_id, t.id, t.position, t.type, v_products->t.product_ref->>0,
         v_users->(case when t.user_id is not null then 'id:' || t.user_id else 'ext:' || t.user_external_id end)->>0, t.description, t.currency, t.unit_price, t.quantity, t.amount, t.tags
  from jsonb_to_recordset(p_items) as t(id text, position integer, type text, product_ref text, user_id text, user_external_id text,
                                        description text, currency text, unit_price numeric, quantity integer, amount numeric, tags jsonb);
  return query
    select 'created'::text, v_created, array_agg(u->>0 order by t.n), array_agg(u->>1 order by t.n),
           array_agg(v_products->(t.i->>'product_ref')->>0 order by t.n), array_agg(v_products->(t.i->>'product_ref')->>1 order by t.n)
    from jsonb_array_elements(p_items) with ordinality as t(i, n)
    cross join lateral (select v_users->(case when t.i->>'user_id' is not null then 'id:' || (t.i->>'user_id')
                                               else 'ext:' || (t.i->>'user_external_id') end) as u) r;
end
$function$;

CREATE OR REPLACE FUNCTION public.create_invoices(p_calls jsonb)
 RETURNS TABLE(n integer, outcome text, invoice_created timestamp with time zone, user_ids text[], user_external_ids text[], product_ids text[], product_codes text[], error_code text, error_detail text)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
declare
  v_claimed integer[];
  v_created timestamptz[];
  -- Per item of a claimed call (its 0-based index in the call's items).
  i_calls integer[];
  i_indexes integer[];
  i_workspaces text[];
  i_invoices text[];
  i_ids text[];
  i_positions integer[];
  i_types text[];
  i_product_refs text[];
  i_user_ids text[];
  i_external_ids text[];
  i_new_user_ids text[];
  i_descriptions text[];
  i_currencies text[];
  i_unit_prices numeric[];
  i_quantities integer[];
  i_amounts numeric[];
  i_tags jsonb[];
  i_product_ids text[];
  i_product_codes text[];
  i_user_known boolean[];
  i_resolved_user_ids text[];
  v_refused integer[];
  v_codes text[];
  v_details text[];
  v_live integer[];
  v_rows integer;
begin
  -- 1. Claims.
  with call as (
    select c.n::integer as n, c.value as v from jsonb_array_elements(p_calls) with ordinality as c(value, n)
  ), claim as (
    insert into invoices as i (workspace_id, id, tags, request_hash)
    select c.v->>'workspace_id', c.v->>'invoice_id', c.v->'tags', c.v->>'request_hash' from call c
    order by c.v->>'workspace_id', c.v->>'invoice_id'
    on conflict (workspace_id, id) do nothing
    returning i.workspace_id, i.id, i.created
  )
  select coalesce(array_agg(c.n order by c.n), '{}'), coalesce(array_agg(k.created order by c.n), '{}')
  into v_claimed, v_created
  from claim k join call c on c.v->>'workspace_id' = k.workspace_id and c.v->>'invoice_id' = k.id;

  -- 2. The claimed calls' items, their products and the users they name by id, each distinct
  -- reference probed once (fenced: see billing_users.sql).
  with item as (
    select c.n::integer as n, c.value->>'workspace_id' as workspace_id, c.value->>'invoice_id' as invoice_id, t.*
    from jsonb_array_elements(p_calls) with ordinality as c(value, n)
    cross join lateral rows from (jsonb_to_recordset(c.value->'items') as (id text, position integer, type text,
      product_ref text, user_id text, user_external_id text, new_user_id text, description text, currency text,
      unit_price numeric, quantity integer, amount numeric, tags jsonb)) with ordinality
      as t(id, position, type, product_ref, user_id, user_external_id, new_user_id, description, currency, unit_price,
           quantity, amount, tags, k)
    where c.n = any(v_claimed)
  ), product as (
    -- Keyed maps, read back per item, as in ensure_named_users (billing_users.sql).
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.ref, jsonb_build_array(p.id, p.code))
                      filter (where p.id is not null), '{}') as by_ref
    from (select distinct t.workspace_id, t.product_ref as ref from item t) r
    left join lateral (
      select pr.id, pr.code from products pr where pr.workspace_id = r.workspace_id and (pr.code = r.ref or pr.id = r.ref)
      order by (pr.code = r.ref) desc limit 1
    ) p on true
  ), named_user as (
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.id, u.external_id), '{}') as by_id
    from (select distinct t.workspace_id, t.user_id as id from item t where t.user_id is not null) r
    cross join lateral (select u.external_id from billing_users u where u.workspace_id = r.workspace_id and u.id = r.id offset 0) u
  )
  -- One pass, so the arrays stay aligned item by item.
  select array_agg(t.n), array_agg((t.k - 1)::integer), array_agg(t.workspace_id), array_agg(t.invoice_id), array_agg(t.id),
         array_agg(t.position), array_agg(t.type), array_agg(t.product_ref), array_agg(t.user_id),
         array_agg(coalesce(u.by_id ->> (t.workspace_id || E'\n' || t.user_id), t.user_external_id)),
         array_agg(t.new_user_id), array_agg(t.description), array_agg(t.currency), array_agg(t.unit_price),
         array_agg(t.quantity), array_agg(t.amount), array_agg(t.tags),
         array_agg(p.by_ref -> (t.workspace_id || E'\n' || t.product_ref) ->> 0),
         array_agg(p.by_ref -> (t.workspace_id || E'\n' || t.product_ref) ->> 1),
         array_agg(t.user_id is null or u.by_id ? (t.workspace_id || E'\n' || t.user_id))
  into i_calls, i_indexes, i_workspaces, i_invoices, i_ids, i_positions, i_types, i_product_refs, i_user_ids,
       i_external_ids, i_new_user_ids, i_descriptions, i_currencies, i_unit_prices, i_quantities, i_amounts, i_tags,
       i_product_ids, i_product_codes, i_user_known
  from item t cross join product p cross join named_user u;

  select coalesce(array_agg(r.n order by r.n), '{}'), coalesce(array_agg(r.code order by r.n), '{}'),
         coalesce(array_agg(r.detail order by r.n), '{}')
  into v_refused, v_codes, v_details
  from (
    select m.n, case when bool_or(m.product_id is null) then 'TL003' else 'TL004' end as code,
           case when bool_or(m.product_id is null)
                then jsonb_agg(m.k order by m.k) filter (where m.product_id is null)
                else jsonb_agg(m.k order by m.k) filter (where not m.known) end::text as detail
    from unnest(i_calls, i_indexes, i_product_ids, i_user_known) as m(n, k, product_id, known)
    group by m.n
    having bool_or(m.product_id is null) or not bool_and(m.known)
  ) r;

  -- 3. Writes.
  if cardinality(v_refused) > 0 then
    delete from invoices x using unnest(v_refused) o
    where x.workspace_id = p_calls->(o - 1)->>'workspace_id' and x.id = p_calls->(o - 1)->>'invoice_id';
  end if;
  v_live := array(select o from unnest(v_claimed) o where not o = any(v_refused) order by o);

  i_resolved_user_ids := ensure_named_users(i_calls, i_indexes, i_workspaces, i_user_ids, i_external_ids,
                                            i_new_user_ids, v_live);

  insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency,
                                  unit_price, quantity, amount, tags)
  select m.workspace_id, m.invoice_id, m.id, m.position, m.type, m.product_id, m.user_id, m.description, m.currency,
         m.unit_price, m.quantity, m.amount, m.tags
  from unnest(i_calls, i_workspaces, i_invoices, i_ids, i_positions, i_types, i_product_ids, i_resolved_user_ids,
              i_descriptions, i_currencies, i_unit_prices, i_quantities, i_amounts, i_tags)
         as m(n, workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency, unit_price,
              quantity, amount, tags)
  where m.n = any(v_live);

  return query
    select o, 'created'::text, v_created[array_position(v_claimed, o)], r.user_ids, r.user_external_ids, r.product_ids,
           r.product_codes, null::text, null::text
    from unnest(v_live) o
    -- Each item's user and product, in the call's item order.
    cross join lateral (
      select array_agg(i_resolved_user_ids[p] order by i_indexes[p]) as user_ids,
             array_agg(i_external_ids[p] order by i_indexes[p]) as user_external_ids,
             array_agg(i_product_ids[p] order by i_indexes[p]) as product_ids,
             array_agg(i_product_codes[p] order by i_indexes[p]) as product_codes
      from unnest(array_positions(i_calls, o)) p
    ) r
    union all
    select r.n, null, null, null, null, null, null, r.code, r.detail from unnest(v_refused, v_codes, v_details) as r(n, code, detail)
    union all
    select o::integer, 'taken', null, null, null, null, null, null, null
    from generate_series(1, jsonb_array_length(p_calls)) o where not o = any(v_claimed)
    order by 1;
  -- Answered positionally: a group short of a row fails whole here, before its commit.
  get diagnostics v_rows = row_count;
  assert v_rows = jsonb_array_length(p_calls), format('%s rows answered %s calls', v_rows, jsonb_array_length(p_calls));
end
$function$;

CREATE OR REPLACE FUNCTION public.create_planned_accounts(p_accounts jsonb)
 RETURNS TABLE(planned_id text, account_id text)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
declare
  v_depth smallint;
  v_missing text;
begin
  for v_depth in
    select distinct (a->>'depth')::smallint from jsonb_array_elements(p_accounts) a order by 1
  loop
    -- The first plan of a path (in array order: the group's arrival order) is the one written.
    with planned as (
      select a.n, a.value->>'workspaceId' as workspace_id, a.value->>'ledgerId' as ledger_id, a.value->>'path' as path, a.value
      from jsonb_array_elements(p_accounts) with ordinality as a(value, n)
      where (a.value->>'depth')::smallint = v_depth
    )
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, parent_id, depth, name, type, currency_mode,
                                 currency_code, consistency, linked_account_id, request_hash)
    select distinct on (p.workspace_id, p.ledger_id, p.path)
           p.workspace_id, p.ledger_id, p.value->>'id', p.value->>'ik', p.path,
           (select x.id from ledger_accounts x
            where x.workspace_id = p.workspace_id and x.ledger_id = p.ledger_id
              and x.path = regexp_replace(p.path, '/[^/]*$', '')),
           v_depth, p.value->>'name', p.value->>'type', p.value->>'currencyMode', p.value->>'currencyCode',
           p.value->'consistency', p.value->>'linkedAccountId', p.value->>'requestHash'
    from planned p
    order by p.workspace_id, p.ledger_id, p.path, p.n
    on conflict do nothing;
  end loop;

  select a->>'path' into v_missing
  from jsonb_array_elements(p_accounts) a
  where not exists (select 1 from ledger_accounts x
                    where x.workspace_id = a->>'workspaceId' and x.ledger_id = a->>'ledgerId' and x.path = a->>'path')
  limit 1;
  if v_missing is not null then
    raise exception using errcode = 'TL005', message = 'account_ik_taken', detail = v_missing;
  end if;

  -- One probe per planned path, fenced (lateral, offset 0): as a join, a ledger grown since its
  -- statistics were taken was scanned whole (6 ms a posting at a few thousand accounts).
  return query
    select a->>'id', x.id
    from jsonb_array_elements(p_accounts) a
    cross join lateral (select x.id from ledger_accounts x
                        where x.workspace_id = a->>'workspaceId' and x.ledger_id = a->>'ledgerId' and x.path = a->>'path'
                        offset 0) x;
end
$function$;

CREATE OR REPLACE FUNCTION public.ensure_billing_users(p_workspace_id text, p_items jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
declare
  v_user_ids text[] := array(select i->>'user_id' from jsonb_array_elements(p_items) i where i->>'user_id' is not null);
  v_user_external_ids text[] := array(select i->>'user_external_id' from jsonb_array_elements(p_items) i
                                      where i->>'user_external_id' is not null);
  v_users jsonb;
begin
  insert into billing_users (workspace_id, id, external_id)
  select distinct on (i->>'user_external_id') p_workspace_id, i->>'new_user_id', i->>'user_external_id'
  from jsonb_array_elements(p_items) i where i->>'user_external_id' is not null and i->>'new_user_id' is not null
  order by i->>'user_external_id'
  on conflict (workspace_id, external_id) do nothing;
  select coalesce(jsonb_object_agg(r.key, jsonb_build_array(r.id, r.external_id)), '{}') into v_users
  from (select 'id:' || u.id as key, u.id, u.external_id from billing_users u
        where u.workspace_id = p_workspace_id and u.id = any(v_user_ids)
        union
        select 'ext:' || u.external_id, u.id, u.external_id from billing_users u
        where u.workspace_id = p_workspace_id and u.external_id = any(v_user_external_ids)) r;
  return v_users;
end
$function$;

CREATE OR REPLACE FUNCTION public.ensure_named_users(p_calls integer[], p_positions integer[], p_workspaces text[], p_user_ids text[], p_external_ids text[], p_new_user_ids text[], p_live integer[])
 RETURNS text[]
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  v_ids jsonb;
  v_user_ids text[];
begin
  insert into billing_users (workspace_id, id, external_id)
  select distinct on (m.workspace_id, m.external_id) m.workspace_id, m.new_user_id, m.external_id
  from unnest(p_calls, p_positions, p_workspaces, p_user_ids, p_external_ids, p_new_user_ids)
         as m(n, position, workspace_id, user_id, external_id, new_user_id)
  where m.user_id is null and m.new_user_id is not null and m.n = any(p_live)
  order by m.workspace_id, m.external_id, m.n, m.position
  on conflict (workspace_id, external_id) do nothing;

  -- Each external id probed once, read back per item from a keyed map: a join of the items back
  -- to the probes (estimated at a few rows under a generic plan) was planned as a nested loop,
  -- quadratic in a large group.
  select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.external_id, u.id), '{}') into v_ids
  from (select distinct m.workspace_id, m.external_id
        from unnest(p_calls, p_workspaces, p_user_ids, p_external_ids) as m(n, workspace_id, user_id, external_id)
        where m.user_id is null and m.n = any(p_live)) r
  cross join lateral (select u.id from billing_users u
                      where u.workspace_id = r.workspace_id and u.external_id = r.external_id offset 0) u;
  select array_agg(coalesce(m.user_id, v_ids ->> (m.workspace_id || E'\n' || m.external_id)) order by m.k) into v_user_ids
  from unnest(p_workspaces, p_user_ids, p_external_ids) with ordinality as m(workspace_id, user_id, external_id, k);
  return v_user_ids;
end
$function$;

CREATE OR REPLACE FUNCTION public.failed_condition(p_workspace_id text, p_ledger_id text, p_conditions jsonb, p_account_ids text[], p_currencies text[], p_amounts numeric[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
declare
  v_condition jsonb;
  v_before numeric;
  v_delta numeric;
begin
  if jsonb_path_exists(p_conditions, '$[*] ? (exists(@.totalPrecondition) || exists(@.totalPostcondition))') then
    perform lock_for_total_conditions(p_workspace_id, p_ledger_id, p_conditions, p_account_ids, p_currencies);
  end if;
  -- Every row this entry will update under a lock, by apply_balance_deltas' rule (lines of strong
  -- accounts and of bounded accounts, every currency), and each bounded pair, before any
  -- condition reads one.
  perform lock_balance_rows(array_agg(p_workspace_id), array_agg(l.account_id), array_agg(l.currency))
  from (
    with bounded as (
      select c.value->>'accountId' as account_id, c.value->>'currency' as currency from jsonb_array_elements(p_conditions) c
      where c.value ? 'precondition' or c.value ? 'postcondition'
    )
    select t.account_id, t.currency from unnest(p_account_ids, p_currencies) as t(account_id, currency)
    join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = t.account_id
    where coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual'
       or t.account_id in (select k.account_id from bounded k)
    union
    select k.account_id, k.currency from bounded k
  ) l;

  for v_condition in select value from jsonb_array_elements(p_conditions) order by (value->>'index')::integer loop
    if v_condition ? 'precondition' or v_condition ? 'postcondition' then
      -- A new statement after the locks: every posting that held these rows has committed.
      select b.own_balance + coalesce((select sum(q.amount) from ledger_balance_queue q
                                       where q.workspace_id = p_workspace_id and q.account_id = b.account_id
                                         and q.currency = b.currency and not q.balance_applied), 0)
      into v_before
      from ledger_account_balances b
      where b.workspace_id = p_workspace_id and b.account_id = v_condition->>'accountId' and b.currency = v_condition->>'currency';
      select coalesce(sum(t.amount), 0) into v_delta
      from unnest(p_account_ids, p_currencies, p_amounts) as t(account_id, currency, amount)
      where t.account_id = v_condition->>'accountId' and t.currency = v_condition->>'currency';
      if v_before is null or not coalesce(condition_holds(v_before, v_condition->'precondition')
                                          and condition_holds(v_before + v_delta, v_condition->'postcondition'), false) then
        return (v_condition->>'index')::integer;
      end if;
    end if;
    if v_condition ? 'totalPrecondition' or v_condition ? 'totalPostcondition' then
      v_before := total_balance(p_workspace_id, v_condition->>'accountId', v_condition->>'currency');
      select coalesce(sum(t.amount), 0) into v_delta
      from unnest(p_account_ids, p_currencies, p_amounts) as t(account_id, currency, amount)
      join ledger_accounts root on root.workspace_id = p_workspace_id and root.id = v_condition->>'accountId'
      join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = t.account_id
      where t.currency = v_condition->>'currency' and (a.id = root.id or a.path like like_prefix(root.path) || '/%');
      if v_before is null or not coalesce(condition_holds(v_before, v_condition->'totalPrecondition')
                                          and condition_holds(v_before + v_delta, v_condition->'totalPostcondition'), false) then
        return (v_condition->>'index')::integer;
      end if;
    end if;
  end loop;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.find_posting_targets(p_workspace_ids text[], p_ledger_ids text[], p_ledger_iks text[], p_ref_requests integer[], p_ref_ids text[], p_ref_paths text[], p_ref_iks text[])
 RETURNS TABLE(request integer, workspace_id text, id text, ik text, name text, type text, balance_utc_offset text, schema_key text, schema_version integer, request_hash text, created timestamp with time zone, schema_content_hash text, posting_revision bigint, accounts json)
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
begin
  return query
    with wanted as (
      select w.request::integer, w.workspace_id, w.ledger_id, w.ledger_ik
      from unnest(p_workspace_ids, p_ledger_ids, p_ledger_iks) with ordinality as w(workspace_id, ledger_id, ledger_ik, request)
    ), matched as (
      -- By id, or else by ik: each branch probes its own unique index.
      select w.request, g.* from wanted w
      join ledgers g on g.workspace_id = w.workspace_id and g.id = w.ledger_id
      where w.ledger_id is not null and g.deleted_at is null and (w.ledger_ik is null or g.ik = w.ledger_ik)
      union all
      select w.request, g.* from wanted w
      join ledgers g on g.workspace_id = w.workspace_id and g.ik = w.ledger_ik
      where w.ledger_id is null and g.deleted_at is null
    ), named as (
      -- Each reference probes the one unique index of the way it names its account (the other
      -- branches' one-time filters are false), fenced (lateral, offset 0): as a join, a ledger
      -- grown since its statistics were taken was scanned whole. An account named twice is
      -- listed twice.
      select m.request, a.* from unnest(p_ref_requests, p_ref_ids, p_ref_paths, p_ref_iks) as r(request, id, path, ik)
      join matched m on m.request = r.request
      cross join lateral (
        select * from ledger_accounts a
        where r.id is not null and a.workspace_id = m.workspace_id and a.id = r.id and a.ledger_id = m.id
        union all
        select * from ledger_accounts a
        where r.path is not null and a.workspace_id = m.workspace_id and a.ledger_id = m.id and a.path = r.path
        union all
        select * from ledger_accounts a
        where r.ik is not null and a.workspace_id = m.workspace_id and a.ledger_id = m.id and a.ik = r.ik
        offset 0
      ) a
    ), accounts_of as (
      -- One aggregation over every reference, instead of a scan of them all per request.
      select a.request, json_agg(json_build_object(
               'workspaceId', a.workspace_id, 'ledgerId', a.ledger_id, 'id', a.id, 'ik', a.ik, 'path', a.path,
               'parentId', a.parent_id, 'depth', a.depth, 'name', a.name, 'type', a.type,
               'currencyMode', a.currency_mode, 'currencyCode', a.currency_code, 'consistency', a.consistency,
               'linkedAccountId', a.linked_account_id, 'requestHash', a.request_hash, 'created', a.created)) as accounts
      from named a group by a.request
    )
    select m.request, m.workspace_id, m.id, m.ik, m.name, m.type, m.balance_utc_offset, m.schema_key, m.schema_version,
           m.request_hash, m.created,
           (select v.content_hash from ledger_schema_versions v
            where v.workspace_id = m.workspace_id and v.schema_key = m.schema_key and v.version = m.schema_version),
           m.posting_revision, coalesce(o.accounts, '[]')
    from matched m left join accounts_of o on o.request = m.request;
end
$function$;

CREATE OR REPLACE FUNCTION public.fold_ledger_balance_queue(p_limit integer, p_workspace_id text DEFAULT NULL::text)
 RETURNS TABLE(folded integer, oldest timestamp with time zone)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
declare
  v_oldest timestamptz;
  v_workspaces text[];
  v_accounts text[];
  v_currencies text[];
  v_hours timestamp[];
  v_amounts numeric[];
  v_lines bigint[];
  v_applied boolean[];
  v_taken integer;
begin
  if not pg_try_advisory_xact_lock(7310002) then
    return query select 0, null::timestamptz;
    return;
  end if;
  with taken as (
    -- = any(array(...)) probes the primary key; `in (subquery)` planned a hash join over a
    -- sequential scan of the whole queue, dead rows included, on every fold. No row locks first
    -- (a WAL record per row): a row a concurrent fold deleted is skipped by this delete, not returned.
    delete from ledger_balance_queue q
    where q.seq = any(case
      when p_workspace_id is not null then
        array(select seq from ledger_balance_queue w where w.workspace_id = p_workspace_id order by seq limit p_limit)
      -- Only a sandbox has holds: the plain probe of the queue's head stays the common path.
      when exists (select from sandbox_fold_holds) then
        array(select seq from ledger_balance_queue w
              where not exists (select from sandbox_fold_holds h where h.workspace_id = w.workspace_id)
              order by seq limit p_limit)
      else array(select seq from ledger_balance_queue order by seq limit p_limit)
    end)
    returning q.workspace_id, q.account_id, q.currency, q.local_hour, q.amount, q.line_count, q.balance_applied, q.enqueued
  ), grouped as (
    select workspace_id, account_id, currency, local_hour, balance_applied, sum(amount) as amount, sum(line_count) as lines,
           count(*) as rows, min(enqueued) as oldest
    from taken group by workspace_id, account_id, currency, local_hour, balance_applied
  )
  select array_agg(workspace_id), array_agg(account_id), array_agg(currency), array_agg(local_hour),
         array_agg(amount), array_agg(lines), array_agg(balance_applied), sum(rows)::integer, min(grouped.oldest)
  into v_workspaces, v_accounts, v_currencies, v_hours, v_amounts, v_lines, v_applied, v_taken, v_oldest
  from grouped;
  if v_taken is null then
    return query select 0, null::timestamptz;
    return;
  end if;

  insert into ledger_balance_buckets as k (workspace_id, account_id, grain, bucket, currency, amount, line_count)
  select t.workspace_id, t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency, sum(t.amount), sum(t.lines)
  from unnest(v_workspaces, v_accounts, v_currencies, v_hours, v_amounts, v_lines) as t(workspace_id, account_id, currency, local_hour, amount, lines)
  cross join (values ('hour'), ('day'), ('month'), ('year')) as g(grain)
  group by t.workspace_id, t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency
  order by t.account_id, g.grain, date_trunc(g.grain, t.local_hour), t.currency
  on conflict (workspace_id, account_id, grain, bucket, currency)
    do update set amount = k.amount + excluded.amount, line_count = k.line_count + excluded.line_count;

  -- Balance rows last: postings that bound an eventual account lock its row, so the fold holds
  -- those locks only for this statement and the commit, not for the whole batch.
  insert into ledger_account_balances as b (workspace_id, account_id, currency, own_balance, line_count)
  select t.workspace_id, t.account_id, t.currency, sum(t.amount), sum(t.lines)
  from unnest(v_workspaces, v_accounts, v_currencies, v_amounts, v_lines, v_applied) as t(workspace_id, account_id, currency, amount, lines, applied)
  where not t.applied
  group by t.workspace_id, t.account_id, t.currency
  order by t.account_id, t.currency
  on conflict (workspace_id, account_id, currency)
    do update set own_balance = b.own_balance + excluded.own_balance, line_count = b.line_count + excluded.line_count;
  return query select v_taken, v_oldest;
end
$function$;

CREATE OR REPLACE FUNCTION public.ik_holder(p_workspace_id text, p_ledger_id text, p_ik text)
 RETURNS TABLE(id text, request_hash text, created timestamp with time zone, reversal_position integer, reverses_id text)
 LANGUAGE sql
 STABLE
AS $function$
  select x.id, x.request_hash, x.created, x.reversal_position, x.reverses_id from ledger_entries x
  where x.workspace_id = p_workspace_id and x.ledger_id = p_ledger_id and x.ik = p_ik
  order by x.reversal_position desc limit 1
$function$;

CREATE OR REPLACE FUNCTION public.int96_max()
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE
AS $function$ select 1329227995784915872903807060280344575::numeric $function$;

CREATE OR REPLACE FUNCTION public.judge_group_conditions(p_balances jsonb, p_ordinals integer[], p_conditions jsonb, p_line_entries integer[], p_line_keys text[], p_amounts numeric[])
 RETURNS TABLE(ordinal integer, failed_condition integer)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
declare
  v_balances jsonb := p_balances;
  v_ordinal integer;
  v_condition jsonb;
  v_failed integer;
  v_before numeric;
  v_delta numeric;
  v_key text;
  v_next integer := 1;
  v_first integer;
  v_line integer;
begin
  foreach v_ordinal in array p_ordinals loop
    -- This entry's lines are p_line_entries[v_first .. v_next - 1].
    v_first := v_next;
    while v_next <= coalesce(array_length(p_line_entries, 1), 0) and p_line_entries[v_next] = v_ordinal loop
      v_next := v_next + 1;
    end loop;
    v_failed := null;
    for v_condition in select c.value from jsonb_array_elements(p_conditions -> (v_ordinal - 1)) c
                       order by (c.value->>'index')::integer loop
      continue when not (v_condition ? 'precondition' or v_condition ? 'postcondition');
      v_key := (v_condition->>'accountId') || '|' || (v_condition->>'currency');
      v_before := (v_balances->>v_key)::numeric;
      v_delta := 0;
      for v_line in v_first .. v_next - 1 loop
        if p_line_keys[v_line] = v_key then
          v_delta := v_delta + p_amounts[v_line];
        end if;
      end loop;
      if v_before is null or not coalesce(condition_holds(v_before, v_condition->'precondition')
                                          and condition_holds(v_before + v_delta, v_condition->'postcondition'), false) then
        v_failed := (v_condition->>'index')::integer;
        exit;
      end if;
    end loop;
    if v_failed is null then
      -- The entry holds: its deltas move the balances the next entries are judged on.
      for v_line in v_first .. v_next - 1 loop
        v_balances := jsonb_set(v_balances, array[p_line_keys[v_line]],
                                to_jsonb(((v_balances->>p_line_keys[v_line])::numeric + p_amounts[v_line])::text));
      end loop;
    end if;
    return query select v_ordinal, v_failed;
  end loop;
end
$function$;

CREATE OR REPLACE FUNCTION public.ledger_local_hour(p_posted timestamp with time zone, p_offset text)
 RETURNS timestamp without time zone
 LANGUAGE sql
 STABLE
AS $function$
  select date_trunc('hour', (p_posted at time zone 'UTC') + p_offset::interval)
$function$;

CREATE OR REPLACE FUNCTION public.like_prefix(p_text text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_')
$function$;

CREATE OR REPLACE FUNCTION public.lock_balance_rows(p_workspace_ids text[], p_account_ids text[], p_currencies text[])
 RETURNS void
 LANGUAGE sql
AS $function$
  insert into ledger_account_balances as b (workspace_id, account_id, currency)
  select distinct t.workspace_id, t.account_id, t.currency
  from unnest(p_workspace_ids, p_account_ids, p_currencies) as t(workspace_id, account_id, currency)
  order by t.account_id, t.currency
  on conflict (workspace_id, account_id, currency) do update set line_count = b.line_count where false
$function$;

CREATE OR REPLACE FUNCTION public.lock_for_total_conditions(p_workspace_id text, p_ledger_id text, p_conditions jsonb, p_account_ids text[], p_currencies text[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_key bigint;
begin
  for v_key in
    select distinct hashtextextended(p_workspace_id || '|' || p_ledger_id || '|' || split_part(a.path, '/', 1), 0) as key
    from jsonb_array_elements(p_conditions) c
    join ledger_accounts a on a.workspace_id = p_workspace_id and a.id = c.value->>'accountId'
    where c.value ? 'totalPrecondition' or c.value ? 'totalPostcondition'
    order by key
  loop
    perform pg_advisory_xact_lock(v_key);
  end loop;

  perform lock_balance_rows(array_agg(p_workspace_id), array_agg(k.account_id), array_agg(k.currency))
  from (
    select t.account_id, t.currency from unnest(p_account_ids, p_currencies) as t(account_id, currency)
    union
    select b.account_id, b.currency
    from jsonb_array_elements(p_conditions) c
    join ledger_accounts root on root.workspace_id = p_workspace_id and root.id = c.value->>'accountId'
    join ledger_accounts a on a.workspace_id = p_workspace_id and a.ledger_id = p_ledger_id
      and (a.id = root.id or a.path like like_prefix(root.path) || '/%')
    join ledger_account_balances b on b.workspace_id = p_workspace_id and b.account_id = a.id and b.currency = c.value->>'currency'
    where c.value ? 'totalPrecondition' or c.value ? 'totalPostcondition'
  ) k;
end
$function$;

CREATE OR REPLACE FUNCTION public.post_ledger_entry(p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text, p_type text, p_type_version integer, p_parameters jsonb, p_posted timestamp with time zone, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb, p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[], p_line_tags jsonb)
 RETURNS TABLE(posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamp with time zone, posted_position integer)
 LANGUAGE plpgsql
AS $function$
declare
  v_row record;
begin
  select * into v_row
  from post_ledger_entry_checked(p_workspace_id, p_ledger_id, p_entry_id, p_ik, p_request_hash, p_type, p_type_version, p_parameters,
                                 p_posted, p_description, p_tags, p_groups, p_conditions,
                                 p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_descriptions, p_line_tags);
  if v_row.failed_condition is not null then
    raise exception using errcode = 'TL001', message = 'entry_condition_failed', detail = v_row.failed_condition::text;
  end if;
  return query select v_row.posted_entry_id, v_row.posted_request_hash, v_row.replayed, v_row.posted_created, v_row.posted_position;
end
$function$;

CREATE OR REPLACE FUNCTION public.post_ledger_entry_checked(p_workspace_id text, p_ledger_id text, p_entry_id text, p_ik text, p_request_hash text, p_type text, p_type_version integer, p_parameters jsonb, p_posted timestamp with time zone, p_description text, p_tags jsonb, p_groups jsonb, p_conditions jsonb, p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_descriptions text[], p_line_tags jsonb, p_ledger_revision bigint DEFAULT NULL::bigint)
 RETURNS TABLE(posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamp with time zone, posted_position integer, failed_condition integer)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
#variable_conflict use_column
declare
  v_created timestamptz;
  v_last_position integer;
  v_last_is_reversal boolean;
  v_bounded text[];
  v_failed integer;
begin
  if p_ledger_revision is not null then
    perform require_current_ledger_revisions(array[p_workspace_id], array[p_ledger_id], array[p_ledger_revision]);
  end if;
  select h.reversal_position, h.reverses_id is not null into v_last_position, v_last_is_reversal
  from ik_holder(p_workspace_id, p_ledger_id, p_ik) h;
  if v_last_position is null or v_last_is_reversal then
    -- The claim: a concurrent twin waits here until this entry commits (then replays) or withdraws.
    insert into ledger_entries (workspace_id, ledger_id, id, ik, type, type_version, parameters, description, posted, tags, groups,
                                conditions, reversal_position, request_hash)
    values (p_workspace_id, p_ledger_id, p_entry_id, p_ik, p_type, p_type_version, p_parameters, p_description, p_posted, p_tags,
            p_groups, p_conditions, coalesce(v_last_position + 1, 1), p_request_hash)
    on conflict (workspace_id, ledger_id, ik, reversal_position) do nothing
    returning created into v_created;
  end if;
  if v_created is null then
    return query
      select h.id, h.request_hash, true, h.created, h.reversal_position, null::integer
      from ik_holder(p_workspace_id, p_ledger_id, p_ik) h;
    return;
  end if;

  if jsonb_array_length(p_conditions) > 0 then
    v_failed := failed_condition(p_workspace_id, p_ledger_id, p_conditions, p_account_ids, p_currencies, p_amounts);
    if v_failed is not null then
      delete from ledger_entries where workspace_id = p_workspace_id and id = p_entry_id;
      -- The balance rows created only to lock them go too: a refused entry leaves no trace.
      perform remove_unused_balance_rows(array_agg(p_workspace_id), array_agg(k.account_id), array_agg(k.currency))
      from (
        select t.account_id, t.currency from unnest(p_account_ids, p_currencies) as t(account_id, currency)
        union
        select c.value->>'accountId', c.value->>'currency' from jsonb_array_elements(p_conditions) c
      ) k;
      return query select null::text, null::text, false, null::timestamptz, null::integer, v_failed;
      return;
    end if;
  end if;

  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, tags, posted, created)
  select p_workspace_id, p_ledger_id, t.id, p_entry_id, t.position::smallint, t.account_id, t.currency, t.amount, t.key,
         coalesce(t.description, p_description), coalesce(p_line_tags -> (t.position::integer - 1), '[]'), p_posted, v_created
  from unnest(p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_descriptions)
    with ordinality as t(id, account_id, currency, amount, key, description, position);

  select array_agg(c.value->>'accountId') into v_bounded
  from jsonb_array_elements(p_conditions) c where c.value ? 'precondition' or c.value ? 'postcondition';
  perform apply_balance_deltas(p_workspace_id, p_ledger_id, p_posted, p_account_ids, p_currencies, p_amounts, v_bounded);
  if v_bounded is not null then
    -- A bounded pair no line moved had its row created only to be locked: gone.
    perform remove_unused_balance_rows(array_agg(p_workspace_id), array_agg(c.value->>'accountId'), array_agg(c.value->>'currency'))
    from jsonb_array_elements(p_conditions) c where c.value ? 'precondition' or c.value ? 'postcondition';
  end if;

  return query select p_entry_id, p_request_hash, false, v_created, coalesce(v_last_position + 1, 1), null::integer;
end
$function$;

CREATE OR REPLACE FUNCTION public.post_ledger_entry_group(p_workspace_ids text[], p_ledger_ids text[], p_entry_ids text[], p_iks text[], p_request_hashes text[], p_types text[], p_type_versions integer[], p_posted timestamp with time zone[], p_descriptions text[], p_parameters jsonb, p_tags jsonb, p_groups jsonb, p_conditions jsonb, p_line_entries integer[], p_line_ids text[], p_account_ids text[], p_currencies text[], p_amounts numeric[], p_keys text[], p_line_descriptions text[], p_line_tags jsonb, p_new_accounts jsonb, p_all_or_nothing boolean DEFAULT false, p_ledger_revisions bigint[] DEFAULT NULL::bigint[], p_local_hours timestamp without time zone[] DEFAULT NULL::timestamp without time zone[], p_line_strong boolean[] DEFAULT NULL::boolean[])
 RETURNS TABLE(ordinal integer, posted_entry_id text, posted_request_hash text, replayed boolean, posted_created timestamp with time zone, posted_position integer, failed_condition integer, remapped boolean)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
#variable_conflict use_column
declare
  v_claimed integer[];
  v_created timestamptz[];
  v_positions integer[];
  v_conditioned integer[];
  v_bounded_workspaces text[];
  v_bounded_pair_accounts text[];
  v_bounded_currencies text[];
  v_bounded_accounts text[] := '{}';
  v_lock_workspaces text[];
  v_lock_accounts text[];
  v_lock_currencies text[];
  v_balances jsonb;
  v_refused integer[] := '{}';
  v_failed integer[] := '{}';
  v_written integer[];
  v_out_of_range boolean;
  v_queued_accounts text[];
  v_remap jsonb := '{}';
  v_remapped integer[] := '{}';
begin
  if p_ledger_revisions is not null then
    perform require_current_ledger_revisions(p_workspace_ids, p_ledger_ids, p_ledger_revisions);
  end if;
  -- 0. Template instances. Their paths are the first locks an entry takes, as on every path.
  if jsonb_array_length(p_new_accounts) > 0 then
    select coalesce(jsonb_object_agg(m.planned_id, m.account_id), '{}') into v_remap
    from create_planned_accounts(p_new_accounts) m where m.planned_id <> m.account_id;
    if v_remap <> '{}' then
      p_account_ids := array(select coalesce(v_remap->>a.id, a.id) from unnest(p_account_ids) with ordinality as a(id, n) order by a.n);
      p_conditions := (
        select jsonb_agg(
                 (select coalesce(jsonb_agg(case when v_remap ? (c.value->>'accountId')
                                                 then jsonb_set(c.value, '{accountId}', v_remap->(c.value->>'accountId'))
                                                 else c.value end order by c.n), '[]')
                  from jsonb_array_elements(e.value) with ordinality as c(value, n))
                 order by e.n)
        from jsonb_array_elements(p_conditions) with ordinality as e(value, n));
      select coalesce(array_agg(distinct (a->>'entry')::integer), '{}') into v_remapped
      from jsonb_array_elements(p_new_accounts) a where v_remap ? (a->>'id');
    end if;
  end if;

  -- 1. Claims. A concurrent twin of an ik waits here until its holder commits (then replays) or withdraws.
  with entry as (
    select * from unnest(p_workspace_ids, p_ledger_ids, p_entry_ids, p_iks, p_request_hashes, p_types, p_type_versions,
                         p_posted, p_descriptions)
      with ordinality as e(workspace_id, ledger_id, id, ik, request_hash, type, type_version, posted, description, ordinal)
  ), claim as (
    insert into ledger_entries as t (workspace_id, ledger_id, id, ik, type, type_version, parameters, description, posted, tags,
                                     groups, conditions, reversal_position, request_hash)
    select e.workspace_id, e.ledger_id, e.id, e.ik, e.type, e.type_version, nullif(p_parameters -> (e.ordinal::integer - 1), 'null'),
           e.description, e.posted, p_tags -> (e.ordinal::integer - 1), p_groups -> (e.ordinal::integer - 1),
           p_conditions -> (e.ordinal::integer - 1), coalesce(last.reversal_position + 1, 1), e.request_hash
    from entry e
    left join lateral ik_holder(e.workspace_id, e.ledger_id, e.ik) last on true
    where last.reversal_position is null or last.reverses_id is not null
    order by e.workspace_id, e.ledger_id, e.ik
    on conflict (workspace_id, ledger_id, ik, reversal_position) do nothing
    returning t.workspace_id, t.id, t.created, t.reversal_position
  )
  select array_agg(e.ordinal::integer order by e.ordinal), array_agg(c.created order by e.ordinal),
         array_agg(c.reversal_position order by e.ordinal)
  into v_claimed, v_created, v_positions
  from claim c join entry e on e.workspace_id = c.workspace_id and e.id = c.id;
  v_claimed := coalesce(v_claimed, '{}');

  -- 2. Conditions, judged in arrival order on balances locked for the whole group.
  select array_agg(o order by o) into v_conditioned
  from unnest(v_claimed) o where jsonb_array_length(p_conditions -> (o - 1)) > 0;
  if v_conditioned is not null then
    -- The pairs whose own balance a claimed entry bounds, read from the conditions once.
    select coalesce(array_agg(k.workspace_id), '{}'), coalesce(array_agg(k.account_id), '{}'),
           coalesce(array_agg(k.currency), '{}'), coalesce(array_agg(distinct k.account_id), '{}')
    into v_bounded_workspaces, v_bounded_pair_accounts, v_bounded_currencies, v_bounded_accounts
    from (select distinct p_workspace_ids[o] as workspace_id, c.value->>'accountId' as account_id, c.value->>'currency' as currency
          from unnest(v_conditioned) o cross join jsonb_array_elements(p_conditions -> (o - 1)) c
          where c.value ? 'precondition' or c.value ? 'postcondition') k;

    -- Every row the group updates under a lock (strong or bounded accounts) and every bounded
    -- pair, created or locked in one ordered pass before any balance is read.
    select array_agg(k.workspace_id), array_agg(k.account_id), array_agg(k.currency)
    into v_lock_workspaces, v_lock_accounts, v_lock_currencies
    from (
      select p_workspace_ids[l.entry] as workspace_id, l.account_id, l.currency
      from unnest(p_line_entries, p_account_ids, p_currencies) as l(entry, account_id, currency)
      join ledger_accounts a on a.workspace_id = p_workspace_ids[l.entry] and a.id = l.account_id
      where l.entry = any(v_claimed)
        and (coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual' or l.account_id = any(v_bounded_accounts))
      union
      select * from unnest(v_bounded_workspaces, v_bounded_pair_accounts, v_bounded_currencies)
    ) k;
    perform lock_balance_rows(v_lock_workspaces, v_lock_accounts, v_lock_currencies);

    -- A new statement after the locks: every posting that held these rows has committed.
    select jsonb_object_agg(b.account_id || '|' || b.currency,
             (b.own_balance + coalesce((select sum(q.amount) from ledger_balance_queue q
                                        where q.workspace_id = b.workspace_id and q.account_id = b.account_id
                                          and q.currency = b.currency and not q.balance_applied), 0))::text)
    into v_balances
    from ledger_account_balances b
    join unnest(v_bounded_workspaces, v_bounded_pair_accounts, v_bounded_currencies) as k(workspace_id, account_id, currency)
      on b.workspace_id = k.workspace_id and b.account_id = k.account_id and b.currency = k.currency;

    -- Entries without conditions move bounded balances too, so every claimed entry with a line
    -- on a bounded pair is judged in order (with no conditions, it always holds).
    with relevant as (
      select l.entry, l.account_id || '|' || l.currency as key, l.amount, l.seq
      from unnest(p_line_entries, p_account_ids, p_currencies, p_amounts) with ordinality as l(entry, account_id, currency, amount, seq)
      where l.entry = any(v_claimed) and v_balances ? (l.account_id || '|' || l.currency)
    )
    select coalesce(array_agg(j.ordinal) filter (where j.failed_condition is not null), '{}'),
           coalesce(array_agg(j.failed_condition) filter (where j.failed_condition is not null), '{}')
    into v_refused, v_failed
    from judge_group_conditions(
      coalesce(v_balances, '{}'),
      (select array_agg(distinct o order by o) from (select unnest(v_conditioned) union select entry from relevant) as t(o)),
      p_conditions,
      coalesce((select array_agg(r.entry order by r.entry, r.seq) from relevant r), '{}'),
      coalesce((select array_agg(r.key order by r.entry, r.seq) from relevant r), '{}'),
      coalesce((select array_agg(r.amount order by r.entry, r.seq) from relevant r), '{}')) j;
    if cardinality(v_refused) > 0 then
      delete from ledger_entries x
      using unnest(v_refused) o
      where x.workspace_id = p_workspace_ids[o] and x.id = p_entry_ids[o];
    end if;
  end if;

  -- Nothing to refuse when every entry claimed its ik and held.
  if p_all_or_nothing and (cardinality(v_refused) > 0 or cardinality(v_claimed) < cardinality(p_iks)) then
    perform refuse_batch(p_workspace_ids, p_ledger_ids, p_iks, p_request_hashes, v_claimed, v_refused, v_failed);
  end if;

  select coalesce(array_agg(o order by o), '{}') into v_written from unnest(v_claimed) o where not o = any(v_refused);

  -- 3. Lines of the written entries.
  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, tags,
                            posted, created)
  select p_workspace_ids[l.entry], p_ledger_ids[l.entry], l.id, p_entry_ids[l.entry],
         (row_number() over (partition by l.entry order by l.seq))::smallint, l.account_id, l.currency, l.amount, l.key,
         coalesce(l.description, p_descriptions[l.entry]), coalesce(p_line_tags -> (l.seq::integer - 1), '[]'),
         p_posted[l.entry], v_created[array_position(v_claimed, l.entry)]
  from unnest(p_line_entries, p_line_ids, p_account_ids, p_currencies, p_amounts, p_keys, p_line_descriptions)
    with ordinality as l(entry, id, account_id, currency, amount, key, description, seq)
  where l.entry = any(v_written);

  -- 4. Balance deltas of the written entries, aggregated: one update per balance row, in
  -- (account, currency) order; one queue row per account, currency and local hour of the others.
  with line as (
    select p_workspace_ids[l.entry] as workspace_id, p_ledger_ids[l.entry] as ledger_id, p_posted[l.entry] as posted,
           l.account_id, l.currency, l.amount, p_local_hours[l.entry] as given_hour,
           -- Read instead: a planned account another posting created first (it may not be the one
           -- planned), and every line of a group whose rows step 2 locked from what it read.
           case when v_lock_accounts is null and not l.entry = any(v_remapped) then p_line_strong[l.seq] end as given_strong
    from unnest(p_line_entries, p_account_ids, p_currencies, p_amounts) with ordinality as l(entry, account_id, currency, amount, seq)
    where l.entry = any(v_written)
  ), decided as (
    -- Each entry's local hour and each line's strong account, as the server prepared them (their
    -- ledger revision is checked above); read here when not given (the subqueries run only then).
    select l.workspace_id, l.ledger_id, l.posted, l.account_id, l.currency, l.amount,
           coalesce(l.given_hour, (select ledger_local_hour(l.posted, g.balance_utc_offset) from ledgers g
                                   where g.workspace_id = l.workspace_id and g.id = l.ledger_id)) as local_hour,
           coalesce(l.given_strong,
                    (select coalesce(a.consistency->>'ownBalanceUpdates', 'strong') <> 'eventual' from ledger_accounts a
                     where a.workspace_id = l.workspace_id and a.id = l.account_id),
                    true)
             or l.account_id = any(v_bounded_accounts) as applied
    from line l
  ), queued as (
    insert into ledger_balance_queue (workspace_id, account_id, currency, local_hour, amount, line_count, balance_applied)
    select d.workspace_id, d.account_id, d.currency, d.local_hour, sum(d.amount), count(*), false
    from decided d
    where not d.applied
    group by d.workspace_id, d.account_id, d.currency, d.local_hour
  ), updated as (
    select u.*
    from (select array_agg(d.workspace_id) as workspace_ids, array_agg(d.account_id) as account_ids,
                 array_agg(d.currency) as currencies, array_agg(d.local_hour) as hours, array_agg(d.amount) as amounts,
                 array_agg(1::bigint) as lines
          from decided d where d.applied) h
    cross join lateral add_to_balance_rows(h.workspace_ids, h.account_ids, h.currencies, h.hours, h.amounts, h.lines) u
  )
  select coalesce((select bool_or(abs(u.own_balance) > int96_max()) from updated u), false),
         array_agg(distinct d.account_id) filter (where not d.applied)
  into v_out_of_range, v_queued_accounts
  from decided d;
  if v_out_of_range then
    raise exception using errcode = 'TL002', message = 'balance_out_of_range';
  end if;
  -- Rows of eventual accounts take no lock: a best-effort range check, as for one entry.
  if v_queued_accounts is not null and exists (
    select 1
    from (select distinct p_workspace_ids[l.entry] as workspace_id, l.account_id, l.currency
          from unnest(p_line_entries, p_account_ids, p_currencies) as l(entry, account_id, currency)
          where l.entry = any(v_written) and l.account_id = any(v_queued_accounts)) k
    where abs(coalesce((select b.own_balance from ledger_account_balances b
                        where b.workspace_id = k.workspace_id and b.account_id = k.account_id and b.currency = k.currency), 0)
              + coalesce((select sum(q.amount) from ledger_balance_queue q
                          where q.workspace_id = k.workspace_id and q.account_id = k.account_id and q.currency = k.currency
                            and not q.balance_applied), 0)) > int96_max()
  ) then
    raise exception using errcode = 'TL002', message = 'balance_out_of_range';
  end if;

  if v_lock_accounts is not null then
    -- Rows created only to be locked (for refused entries, or bounded pairs no line moved): gone.
    perform remove_unused_balance_rows(v_lock_workspaces, v_lock_accounts, v_lock_currencies);
  end if;
  if jsonb_array_length(p_new_accounts) > 0 then
    perform remove_unneeded_accounts(p_new_accounts,
      array(select a->>'path' from jsonb_array_elements(p_new_accounts) a where (a->>'entry')::integer = any(v_written)));
  end if;

  return query
    select o::integer, p_entry_ids[o], p_request_hashes[o], false, v_created[array_position(v_claimed, o::integer)],
           v_positions[array_position(v_claimed, o::integer)], null::integer, o = any(v_remapped)
    from unnest(v_written) o
    union all
    select r.o, null, null, null, null, null, r.failed, false
    from unnest(v_refused, v_failed) as r(o, failed)
    union all
    select o::integer, last.id, last.request_hash, true, last.created, last.reversal_position, null::integer, false
    from generate_subscripts(p_entry_ids, 1) o
    cross join lateral ik_holder(p_workspace_ids[o], p_ledger_ids[o], p_iks[o]) last
    where not o = any(v_claimed);
end
$function$;

CREATE OR REPLACE FUNCTION public.rebuild_balance_history(p_ledger_id text)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  create temporary table rebuilt_accounts on commit drop as
    select a.workspace_id, a.id, g.balance_utc_offset from ledger_accounts a
    join ledgers g on g.workspace_id = a.workspace_id and g.id = a.ledger_id
    where p_ledger_id is null or a.ledger_id = p_ledger_id;
  delete from ledger_balance_queue q using rebuilt_accounts r where q.workspace_id = r.workspace_id and q.account_id = r.id;
  delete from ledger_balance_buckets b using rebuilt_accounts r where b.workspace_id = r.workspace_id and b.account_id = r.id;
  delete from ledger_account_balances b using rebuilt_accounts r where b.workspace_id = r.workspace_id and b.account_id = r.id;

  insert into ledger_account_balances (workspace_id, account_id, currency, own_balance, line_count)
  select l.workspace_id, l.account_id, l.currency, sum(l.amount), count(*)
  from ledger_lines l join rebuilt_accounts r on r.workspace_id = l.workspace_id and r.id = l.account_id
  group by l.workspace_id, l.account_id, l.currency;

  insert into ledger_balance_buckets (workspace_id, account_id, grain, bucket, currency, amount, line_count)
  select h.workspace_id, h.account_id, g.grain, date_trunc(g.grain, h.hour), h.currency, sum(h.amount), sum(h.lines)
  from (
    select l.workspace_id, l.account_id, l.currency, ledger_local_hour(l.posted, r.balance_utc_offset) as hour, sum(l.amount) as amount, count(*) as lines
    from ledger_lines l join rebuilt_accounts r on r.workspace_id = l.workspace_id and r.id = l.account_id
    group by 1, 2, 3, 4
  ) h
  cross join (values ('hour'), ('day'), ('month'), ('year')) as g(grain)
  group by h.workspace_id, h.account_id, g.grain, date_trunc(g.grain, h.hour), h.currency;
  drop table rebuilt_accounts;
end
$function$;

CREATE OR REPLACE FUNCTION public.refuse_batch(p_workspace_ids text[], p_ledger_ids text[], p_iks text[], p_request_hashes text[], p_claimed integer[], p_refused integer[], p_failed integer[])
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  v_detail jsonb;
begin
  select jsonb_build_object('entry', r.o, 'failedCondition', r.failed) into v_detail
  from unnest(p_refused, p_failed) as r(o, failed) order by r.o limit 1;
  if v_detail is null then
    select jsonb_build_object('entry', o, 'entryId', last.id, 'requestHash', last.request_hash, 'created', last.created,
                              'position', last.reversal_position)
    into v_detail
    from generate_subscripts(p_iks, 1) o
    cross join lateral ik_holder(p_workspace_ids[o], p_ledger_ids[o], p_iks[o]) last
    where not o = any(p_claimed) and last.request_hash <> p_request_hashes[o]
    order by o limit 1;
  end if;
  if v_detail is not null then
    raise exception using errcode = 'TL010', message = 'batch_refused', detail = v_detail::text;
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION public.remove_unneeded_accounts(p_accounts jsonb, p_kept_paths text[])
 RETURNS void
 LANGUAGE sql
AS $function$
  select set_config('tally.removing_unseen_accounts', 'on', true);
  delete from ledger_accounts x
  using jsonb_array_elements(p_accounts) a
  where x.workspace_id = a->>'workspaceId' and x.ledger_id = a->>'ledgerId' and x.path = a->>'path'
    and x.xmin = xid(pg_current_xact_id()) and not x.path = any(p_kept_paths);
  select set_config('tally.removing_unseen_accounts', 'off', true);
$function$;

CREATE OR REPLACE FUNCTION public.remove_unused_balance_rows(p_workspace_ids text[], p_account_ids text[], p_currencies text[])
 RETURNS void
 LANGUAGE sql
AS $function$
  delete from ledger_account_balances b
  using unnest(p_workspace_ids, p_account_ids, p_currencies) as t(workspace_id, account_id, currency)
  where b.workspace_id = t.workspace_id and b.account_id = t.account_id and b.currency = t.currency
    and b.own_balance = 0 and b.line_count = 0 and b.xmin = xid(pg_current_xact_id())
$function$;

CREATE OR REPLACE FUNCTION public.renew_ledger_posting_revision()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  new.posting_revision := nextval('ledger_posting_revisions');
  return new;
end
$function$;

CREATE OR REPLACE FUNCTION public.renew_posting_revisions_of_accounts()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if current_setting('tally.removing_unseen_accounts', true) = 'on' then
    return null;
  end if;
  update ledgers g set posting_revision = nextval('ledger_posting_revisions')
  from (select distinct c.workspace_id, c.ledger_id from changed c) k
  where g.workspace_id = k.workspace_id and g.id = k.ledger_id;
  return null;
end
$function$;

CREATE OR REPLACE FUNCTION public.require_billing_users(p_workspace_id text, p_items jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_user_ids text[] := array(select i->>'user_id' from jsonb_array_elements(p_items) i where i->>'user_id' is not null);
  v_found text[];
  v_missing jsonb;
begin
  select coalesce(array_agg(u.id), '{}') into v_found from billing_users u
  where u.workspace_id = p_workspace_id and u.id = any(v_user_ids);
  select jsonb_agg(n - 1 order by n) into v_missing
  from jsonb_array_elements(p_items) with ordinality as t(i, n)
  where i->>'user_id' is not null and not (i->>'user_id') = any(v_found);
  if v_missing is not null then
    raise exception using errcode = 'TL004', message = 'unknown_user', detail = v_missing::text;
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION public.require_current_ledger_revisions(p_workspace_ids text[], p_ledger_ids text[], p_revisions bigint[])
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  v_stale jsonb;
begin
  select jsonb_agg(distinct s.ledger_id) into v_stale
  from (select distinct t.workspace_id, t.ledger_id, t.revision
        from unnest(p_workspace_ids, p_ledger_ids, p_revisions) as t(workspace_id, ledger_id, revision)
        where t.revision is not null
        order by t.workspace_id, t.ledger_id) s
  left join lateral (select 1 as current from ledgers g
                     where g.workspace_id = s.workspace_id and g.id = s.ledger_id and g.posting_revision = s.revision
                     for key share) c on true
  where c.current is null;
  if v_stale is not null then
    raise exception using errcode = 'TL012', message = 'posting_target_changed', detail = v_stale::text;
  end if;
end
$function$;

CREATE OR REPLACE FUNCTION public.reverse_ledger_entry(p_workspace_id text, p_entry_id text, p_new_entry_id text, p_line_ids text[])
 RETURNS TABLE(reversed_id text, reversing_id text, replayed boolean)
 LANGUAGE plpgsql
AS $function$
#variable_conflict use_column
declare
  v_entry ledger_entries;
  v_position integer;
  v_created timestamptz;
  v_accounts text[];
  v_currencies text[];
  v_amounts numeric[];
begin
  select * into v_entry from ledger_entries e where e.workspace_id = p_workspace_id and e.id = p_entry_id for update;
  if not found then
    return;
  end if;
  if v_entry.reverses_id is not null then
    return query select v_entry.reverses_id, v_entry.id, true;
    return;
  end if;
  if v_entry.reversed_by_id is not null then
    return query select v_entry.id, v_entry.reversed_by_id, true;
    return;
  end if;
  select max(e.reversal_position) + 1 into v_position from ledger_entries e
  where e.workspace_id = p_workspace_id and e.ledger_id = v_entry.ledger_id and e.ik = v_entry.ik;

  insert into ledger_entries (workspace_id, ledger_id, id, ik, type, type_version, parameters, description, posted, tags, groups,
                              conditions, reversal_position, reverses_id, request_hash)
  values (p_workspace_id, v_entry.ledger_id, p_new_entry_id, v_entry.ik, v_entry.type, v_entry.type_version, v_entry.parameters,
          v_entry.description, v_entry.posted, v_entry.tags, v_entry.groups, '[]', v_position, v_entry.id, 'reversal')
  returning created into v_created;
  update ledger_entries e set reversed_by_id = p_new_entry_id, reversed_at = v_created
  where e.workspace_id = p_workspace_id and e.id = p_entry_id;

  insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, key, description, tags, posted, created)
  select p_workspace_id, l.ledger_id, p_line_ids[l.position], p_new_entry_id, l.position, l.account_id, l.currency, -l.amount, l.key,
         l.description, l.tags, l.posted, v_created
  from ledger_lines l where l.workspace_id = p_workspace_id and l.entry_id = p_entry_id;

  select array_agg(l.account_id), array_agg(l.currency), array_agg(-l.amount) into v_accounts, v_currencies, v_amounts
  from ledger_lines l where l.workspace_id = p_workspace_id and l.entry_id = p_entry_id;
  perform apply_balance_deltas(p_workspace_id, v_entry.ledger_id, v_entry.posted, v_accounts, v_currencies, v_amounts, null);

  return query select p_entry_id, p_new_entry_id, false;
end
$function$;

CREATE OR REPLACE FUNCTION public.sandbox_clock_now(p_workspace_id text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
  select date_trunc('milliseconds', case when c.frozen then c.base else c.base + (now() - c.set_at) end)
  from sandbox_clocks c where c.workspace_id = p_workspace_id
$function$;

CREATE OR REPLACE FUNCTION public.sandbox_clock_stamp()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.sync_transaction(p_workspace_id text, p_transaction jsonb, p_account jsonb, p_allocations jsonb)
 RETURNS TABLE(outcome text, tx_posted timestamp with time zone, tx_created timestamp with time zone, account jsonb, users jsonb)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
declare
  -- The keys the statements below probe, read from the JSON once.
  v_external_id text := p_transaction->>'external_id';
  v_invoice_ids text[] := array(select a->>'invoice_id' from jsonb_array_elements(p_allocations) a);
  v_found text[];
  v_account_id text;
  v_account_external_id text;
  v_missing jsonb;
  v_users jsonb;
  v_posted timestamptz;
  v_created timestamptz;
begin
  if exists (select 1 from billing_transactions t where t.workspace_id = p_workspace_id and t.external_id = v_external_id) then
    return query select 'taken'::text, null::timestamptz, null::timestamptz, null::jsonb, null::jsonb;
    return;
  end if;
  if exists (select 1 from payment_flows f where f.workspace_id = p_workspace_id and f.invoice_id = any(v_invoice_ids)) then
    return query select 'follow'::text, null::timestamptz, null::timestamptz, null::jsonb, null::jsonb;
    return;
  end if;

  if p_account ? 'id' then
    select x.id, x.external_id into v_account_id, v_account_external_id
    from external_accounts x where x.workspace_id = p_workspace_id and x.id = p_account->>'id';
    if v_account_id is null or (p_account ? 'external_id' and v_account_external_id <> p_account->>'external_id') then
      raise exception using errcode = 'TL006', message = 'unknown_account', detail = coalesce(v_account_external_id, '');
    end if;
  else
    insert into external_accounts (workspace_id, id, external_id)
    values (p_workspace_id, p_account->>'new_id', p_account->>'external_id')
    on conflict (workspace_id, external_id) do nothing;
    select x.id, x.external_id into v_account_id, v_account_external_id
    from external_accounts x where x.workspace_id = p_workspace_id and x.external_id = p_account->>'external_id';
  end if;

  -- Existence by `= any(array)` probes the primary keys; a correlated `not exists` over the JSON
  -- elements (estimated at 100 rows) was planned as a hash anti-join over every invoice.
  select coalesce(array_agg(i.id), '{}') into v_found from invoices i
  where i.workspace_id = p_workspace_id and i.id = any(v_invoice_ids);
  select jsonb_agg(n - 1 order by n) into v_missing
  from unnest(v_invoice_ids) with ordinality as t(id, n) where not t.id = any(v_found);
  if v_missing is not null then
    raise exception using errcode = 'TL007', message = 'unknown_invoice', detail = v_missing::text;
  end if;
  perform require_billing_users(p_workspace_id, p_allocations);
  if (select coalesce(sum((a->>'amount')::numeric), 0) from jsonb_array_elements(p_allocations) a)
     > abs((p_transaction->>'amount')::numeric) then
    raise exception using errcode = 'TL008', message = 'over_allocated';
  end if;

  v_users := ensure_billing_users(p_workspace_id, p_allocations);

  insert into billing_transactions (workspace_id, id, external_id, account_id, amount, currency, posted, tags, allocated, request_hash)
  values (p_workspace_id, p_transaction->>'id', v_external_id, v_account_id, (p_transaction->>'amount')::numeric,
          p_transaction->>'currency', (p_transaction->>'posted')::timestamptz, p_transaction->'tags',
          (p_transaction->>'allocated')::numeric, p_transaction->>'request_hash')
  on conflict (workspace_id, external_id) do nothing
  returning billing_transactions.posted, billing_transactions.created into v_posted, v_created;
  if v_created is null then
    raise exception using errcode = 'TL009', message = 'external_id_taken';
  end if;
  insert into allocations (workspace_id, id, transaction_id, position, invoice_id, user_id, type, amount)
  select p_workspace_id, t.id, p_transaction->>'id', t.position, t.invoice_id,
         v_users->(case when t.user_id is not null then 'id:' || t.user_id else 'ext:' || t.user_external_id end)->>0, t.type, t.amount
  from jsonb_to_recordset(p_allocations) as t(id text, position integer, invoice_id text, user_id text, user_external_id text,
                                             type text, amount numeric);
  return query select 'created'::text, v_posted, v_created, jsonb_build_array(v_account_id, v_account_external_id), v_users;
end
$function$;

CREATE OR REPLACE FUNCTION public.sync_transactions(p_calls jsonb)
 RETURNS TABLE(n integer, outcome text, tx_posted timestamp with time zone, tx_created timestamp with time zone, account jsonb, users jsonb, error_code text, error_detail text)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
#variable_conflict use_column
declare
  -- Per call, in call order: its verdict ('taken', 'follow', a refusal's SQLSTATE, or null to write).
  c_verdicts text[];
  c_details text[];
  v_live integer[];
  v_rows integer;
  -- Per allocation (its 0-based index in the call's allocations).
  a_calls integer[];
  a_indexes integer[];
  a_workspaces text[];
  a_ids text[];
  a_positions integer[];
  a_invoices text[];
  a_user_ids text[];
  a_external_ids text[];
  a_new_user_ids text[];
  a_types text[];
  a_amounts numeric[];
  a_invoice_found boolean[];
  a_user_known boolean[];
  a_follows boolean[];
  a_resolved_user_ids text[];
begin
  -- 1. Allocations, with whether each names an invoice, a user id that exist and an invoice a
  -- payment flow is on; each distinct key probed once (fenced: see billing_users.sql).
  with allocation as (
    select c.n::integer as n, c.value->>'workspace_id' as workspace_id, t.*
    from jsonb_array_elements(p_calls) with ordinality as c(value, n)
    cross join lateral rows from (jsonb_to_recordset(c.value->'allocations') as (id text, position integer, invoice_id text,
      user_id text, user_external_id text, new_user_id text, type text, amount numeric)) with ordinality
      as t(id, position, invoice_id, user_id, user_external_id, new_user_id, type, amount, k)
  ), invoice as (
    -- Probes, not exists(): as a subplan PostgreSQL may hash the whole table once per statement.
    -- A keyed map, read back per allocation, as in ensure_named_users (billing_users.sql).
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.id,
                                     jsonb_build_array(i.id is not null, f.id is not null)), '{}') as by_id
    from (select distinct a.workspace_id, a.invoice_id as id from allocation a) r
    left join lateral (select i.id from invoices i where i.workspace_id = r.workspace_id and i.id = r.id limit 1) i on true
    left join lateral (select f.id from payment_flows f where f.workspace_id = r.workspace_id and f.invoice_id = r.id limit 1) f
      on true
  ), named_user as (
    select coalesce(jsonb_object_agg(r.workspace_id || E'\n' || r.id, u.external_id), '{}') as by_id
    from (select distinct a.workspace_id, a.user_id as id from allocation a where a.user_id is not null) r
    cross join lateral (select u.external_id from billing_users u where u.workspace_id = r.workspace_id and u.id = r.id offset 0) u
  )
  -- One pass, so the arrays stay aligned allocation by allocation.
  select array_agg(a.n), array_agg((a.k - 1)::integer), array_agg(a.workspace_id), array_agg(a.id), array_agg(a.position),
         array_agg(a.invoice_id), array_agg(a.user_id),
         array_agg(coalesce(u.by_id ->> (a.workspace_id || E'\n' || a.user_id), a.user_external_id)),
         array_agg(a.new_user_id), array_agg(a.type), array_agg(a.amount),
         array_agg((i.by_id -> (a.workspace_id || E'\n' || a.invoice_id) ->> 0)::boolean),
         array_agg(a.user_id is null or u.by_id ? (a.workspace_id || E'\n' || a.user_id)),
         array_agg((i.by_id -> (a.workspace_id || E'\n' || a.invoice_id) ->> 1)::boolean)
  into a_calls, a_indexes, a_workspaces, a_ids, a_positions, a_invoices, a_user_ids, a_external_ids, a_new_user_ids,
       a_types, a_amounts, a_invoice_found, a_user_known, a_follows
  from allocation a cross join invoice i cross join named_user u;

  -- 2. Each call's verdict.
  with call as (
    select c.n::integer as n, c.value->>'workspace_id' as workspace_id, c.value->'transaction' as tx, c.value->'account' as account
    from jsonb_array_elements(p_calls) with ordinality as c(value, n)
  ), allocated as (
    select m.n, bool_or(m.follows) as follows,
           jsonb_agg(m.k order by m.k) filter (where not m.found) as missing_invoices,
           jsonb_agg(m.k order by m.k) filter (where not m.known) as missing_users,
           sum(m.amount) as total
    from unnest(a_calls, a_indexes, a_invoice_found, a_user_known, a_follows, a_amounts) as m(n, k, found, known, follows, amount)
    group by m.n
  ), judged as (
    select c.n,
           case when h.id is not null then 'taken'
                when coalesce(a.follows, false) then 'follow'
                when c.account ? 'id' and (x.id is null or (c.account ? 'external_id' and x.external_id <> c.account->>'external_id'))
                  then 'TL006'
                when a.missing_invoices is not null then 'TL007'
                when a.missing_users is not null then 'TL004'
                when coalesce(a.total, 0) > abs((c.tx->>'amount')::numeric) then 'TL008'
           end as verdict,
           x.external_id as account_external_id, a.missing_invoices, a.missing_users
    from call c
    left join lateral (select t.id from billing_transactions t
                       where t.workspace_id = c.workspace_id and t.external_id = c.tx->>'external_id' limit 1) h on true
    left join allocated a on a.n = c.n
    left join lateral (select x.id, x.external_id from external_accounts x
                       where c.account ? 'id' and x.workspace_id = c.workspace_id and x.id = c.account->>'id' limit 1) x on true
  )
  select array_agg(j.verdict order by j.n),
         array_agg(case j.verdict when 'TL006' then coalesce(j.account_external_id, '') when 'TL007' then j.missing_invoices::text
                                  when 'TL004' then j.missing_users::text when 'TL008' then '' end order by j.n)
  into c_verdicts, c_details
  from judged j;
  v_live := array(select o::integer from unnest(c_verdicts) with ordinality as v(verdict, o) where v.verdict is null order by o);

  -- 3. Writes of the calls that pass.
  insert into external_accounts (workspace_id, id, external_id)
  select distinct on (p_calls->(o - 1)->>'workspace_id', p_calls->(o - 1)->'account'->>'external_id')
         p_calls->(o - 1)->>'workspace_id', p_calls->(o - 1)->'account'->>'new_id', p_calls->(o - 1)->'account'->>'external_id'
  from unnest(v_live) o
  where not p_calls->(o - 1)->'account' ? 'id'
  order by p_calls->(o - 1)->>'workspace_id', p_calls->(o - 1)->'account'->>'external_id', o
  on conflict (workspace_id, external_id) do nothing;

  a_resolved_user_ids := ensure_named_users(a_calls, a_indexes, a_workspaces, a_user_ids, a_external_ids,
                                            a_new_user_ids, v_live);

  return query
    with live as (
      select o as n, p_calls->(o - 1)->>'workspace_id' as workspace_id, p_calls->(o - 1)->'transaction' as tx,
             p_calls->(o - 1)->'account' as account
      from unnest(v_live) o
    ), bank as (
      -- By id or by external id, each branch probing its own unique index.
      select l.n, x.id, x.external_id from live l
      cross join lateral (select x.id, x.external_id from external_accounts x
                          where l.account ? 'id' and x.workspace_id = l.workspace_id and x.id = l.account->>'id'
                          union all
                          select x.id, x.external_id from external_accounts x
                          where not l.account ? 'id' and x.workspace_id = l.workspace_id
                            and x.external_id = l.account->>'external_id') x
    ), written as (
      insert into billing_transactions as t (workspace_id, id, external_id, account_id, amount, currency, posted, tags,
                                             allocated, request_hash)
      select l.workspace_id, l.tx->>'id', l.tx->>'external_id', b.id, (l.tx->>'amount')::numeric, l.tx->>'currency',
             (l.tx->>'posted')::timestamptz, l.tx->'tags', (l.tx->>'allocated')::numeric, l.tx->>'request_hash'
      -- An account gone since the checks leaves account_id null: the statement fails, each call goes alone.
      from live l left join bank b on b.n = l.n
      order by l.workspace_id, l.tx->>'external_id'
      returning t.workspace_id, t.id, t.posted, t.created
    ), allocated as (
      insert into allocations (workspace_id, id, transaction_id, position, invoice_id, user_id, type, amount)
      select m.workspace_id, m.id, p_calls->(m.n - 1)->'transaction'->>'id', m.position, m.invoice_id, m.user_id, m.type, m.amount
      from unnest(a_calls, a_workspaces, a_ids, a_positions, a_invoices, a_resolved_user_ids, a_types, a_amounts)
             as m(n, workspace_id, id, position, invoice_id, user_id, type, amount)
      where m.n = any(v_live)
    ), named as (
      select m.n,
             jsonb_object_agg(case when m.user_id is not null then 'id:' || m.user_id else 'ext:' || m.external_id end,
                              jsonb_build_array(m.resolved_user_id, m.external_id)) as users
      from unnest(a_calls, a_user_ids, a_resolved_user_ids, a_external_ids) as m(n, user_id, resolved_user_id, external_id)
      where m.n = any(v_live)
      group by m.n
    )
    select l.n, 'created'::text, w.posted, w.created, jsonb_build_array(b.id, b.external_id), coalesce(u.users, '{}'),
           null::text, null::text
    from live l
    join bank b on b.n = l.n
    join written w on w.workspace_id = l.workspace_id and w.id = l.tx->>'id'
    left join named u on u.n = l.n
    union all
    select v.o::integer, v.verdict, null, null, null, null, null, null
    from unnest(c_verdicts) with ordinality as v(verdict, o) where v.verdict in ('taken', 'follow')
    union all
    select v.o::integer, null, null, null, null, null, v.verdict, v.detail
    from unnest(c_verdicts, c_details) with ordinality as v(verdict, detail, o) where v.verdict like 'TL%'
    order by 1;
  -- Answered positionally: a group short of a row fails whole here, before its commit.
  get diagnostics v_rows = row_count;
  assert v_rows = jsonb_array_length(p_calls), format('%s rows answered %s calls', v_rows, jsonb_array_length(p_calls));
end
$function$;

CREATE OR REPLACE FUNCTION public.total_balance(p_workspace_id text, p_account_id text, p_currency text)
 RETURNS numeric
 LANGUAGE sql
 STABLE
AS $function$
  with subtree as (
    select a.id from ledger_accounts root
    join ledger_accounts a on a.workspace_id = root.workspace_id and a.ledger_id = root.ledger_id
      and (a.id = root.id or a.path like like_prefix(root.path) || '/%')
    where root.workspace_id = p_workspace_id and root.id = p_account_id
  )
  select coalesce((select sum(b.own_balance) from ledger_account_balances b
                   where b.workspace_id = p_workspace_id and b.currency = p_currency and b.account_id in (select id from subtree)), 0)
       + coalesce((select sum(q.amount) from ledger_balance_queue q
                   where q.workspace_id = p_workspace_id and q.currency = p_currency and q.account_id in (select id from subtree)
                     and not q.balance_applied), 0)
$function$;

CREATE OR REPLACE FUNCTION public.workspace_now(p_workspace_id text)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
  select coalesce(sandbox_clock_now(p_workspace_id), date_trunc('milliseconds', now()))
$function$;
