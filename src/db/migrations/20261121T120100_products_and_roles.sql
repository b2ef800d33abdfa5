create table billing_roles (
  workspace_id text not null references workspaces (id),
  id text not null,
  name text not null,
  created timestamptz not null default date_trunc('milliseconds', now()),
  constraint billing_roles_pkey primary key (workspace_id, id),
  constraint billing_roles_name_key unique (workspace_id, name)
);

create table products (
  workspace_id text not null references workspaces (id),
  id text not null,
  code text not null,
  description text not null,
  update_version integer not null default 1,
  created timestamptz not null default date_trunc('milliseconds', now()),
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
