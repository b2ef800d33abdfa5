-- Billing: users and external accounts (created on first reference by the caller's id),
-- invoices with line items and a snapshot per version, transactions with allocations.
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
