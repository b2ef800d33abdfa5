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
