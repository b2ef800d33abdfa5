-- Ledger accounts: a tree per ledger, addressed by id, by ik and by path. Balances, lines and
-- entries arrive in later migrations and reference (workspace_id, id).
create table ledger_accounts (
  workspace_id text not null,
  ledger_id text not null,
  id text not null,
  ik text not null,
  -- Segments joined with '/': the iks of the account and its ancestors (schema keys, later).
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
  constraint ledger_accounts_pkey primary key (workspace_id, id),
  constraint ledger_accounts_ik_key unique (workspace_id, ledger_id, ik),
  constraint ledger_accounts_path_key unique (workspace_id, ledger_id, path),
  constraint ledger_accounts_ledger_fkey foreign key (workspace_id, ledger_id) references ledgers (workspace_id, id),
  constraint ledger_accounts_parent_fkey foreign key (workspace_id, parent_id) references ledger_accounts (workspace_id, id),
  constraint ledger_accounts_currency_check check ((currency_mode = 'multi') = (currency_code is null))
);
create index ledger_accounts_newest_idx on ledger_accounts (workspace_id, ledger_id, created desc, id desc);
create index ledger_accounts_children_idx on ledger_accounts (workspace_id, parent_id, created desc, id desc);
