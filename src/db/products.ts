import { newId } from '../core/ids.js';
import type { Db } from './sql.js';

export type RoleRow = { id: string; name: string };
export type ProductRow = {
  workspaceId: string;
  id: string;
  code: string;
  description: string;
  updateVersion: number;
  created: Date;
  /** Fingerprint of the creating request; null for products created before creates replayed. */
  requestHash: string | null;
  paidByRoles: RoleRow[];
  paidToRoles: RoleRow[];
};
export type RoleRelation = 'paid_by' | 'paid_to';

// Roles come back as ordered [{id, name}] arrays built in SQL, so a product is one row.
const productColumns = (db: Db) => db`
  p.workspace_id as "workspaceId", p.id, p.code, p.description, p.update_version as "updateVersion", p.created,
  p.request_hash as "requestHash",
  ${rolesOf(db, 'paid_by')} as "paidByRoles",
  ${rolesOf(db, 'paid_to')} as "paidToRoles"`;

const rolesOf = (db: Db, relation: RoleRelation) => db`(
  select coalesce(jsonb_agg(jsonb_build_object('id', r.id, 'name', r.name) order by pr.position), '[]'::jsonb)
  from product_roles pr
  join billing_roles r on r.workspace_id = pr.workspace_id and r.id = pr.role_id
  where pr.workspace_id = p.workspace_id and pr.product_id = p.id and pr.relation = ${relation})`;

export async function listProducts(db: Db, workspaceId: string): Promise<ProductRow[]> {
  return db<ProductRow[]>`
    /* listProducts */
    select ${productColumns(db)} from products p
    where p.workspace_id = ${workspaceId}
    order by p.created, p.id`;
}

export async function findProductByCode(db: Db, workspaceId: string, code: string): Promise<ProductRow | undefined> {
  const [row] = await db<ProductRow[]>`
    /* findProductByCode */
    select ${productColumns(db)} from products p
    where p.workspace_id = ${workspaceId} and p.code = ${code}`;
  return row;
}

/** Creates roles named for the first time; returns every named role. */
export async function ensureRolesByName(db: Db, workspaceId: string, names: string[]): Promise<RoleRow[]> {
  if (names.length === 0) return [];
  const ids = names.map(() => newId('role'));
  await db`
    /* insertRolesByName */
    insert into billing_roles (workspace_id, id, name)
    select ${workspaceId}, id, name from unnest(${ids}::text[], ${names}::text[]) as t(id, name)
    on conflict (workspace_id, name) do nothing`;
  return db<RoleRow[]>`
    /* findRolesByName */
    select id, name from billing_roles where workspace_id = ${workspaceId} and name = any(${names}::text[])`;
}

export async function findRolesById(db: Db, workspaceId: string, ids: string[]): Promise<RoleRow[]> {
  if (ids.length === 0) return [];
  return db<RoleRow[]>`
    /* findRolesById */
    select id, name from billing_roles where workspace_id = ${workspaceId} and id = any(${ids}::text[])`;
}

export type NewProduct = {
  code: string;
  description: string;
  requestHash: string;
  roles: { relation: RoleRelation; roleIds: string[] }[];
};

/** Inserts the product and its roles; undefined when the code was taken meanwhile (nothing written). */
export async function insertProduct(db: Db, workspaceId: string, product: NewProduct): Promise<string | undefined> {
  const id = newId('prod');
  const inserted = await db`
    /* insertProduct */
    insert into products (workspace_id, id, code, description, request_hash)
    values (${workspaceId}, ${id}, ${product.code}, ${product.description}, ${product.requestHash})
    on conflict (workspace_id, code) do nothing
    returning id`;
  if (inserted.length === 0) return undefined;
  const links = product.roles.flatMap(({ relation, roleIds }) =>
    roleIds.map((roleId, position) => ({ relation, roleId, position })),
  );
  if (links.length > 0) {
    await db`
      /* insertProductRoles */
      insert into product_roles (workspace_id, product_id, relation, position, role_id)
      select ${workspaceId}, ${id}, relation, position, role_id
      from unnest(${links.map((l) => l.relation)}::text[], ${links.map((l) => l.position)}::int[],
                  ${links.map((l) => l.roleId)}::text[]) as t(relation, position, role_id)`;
  }
  return id;
}

export type ProductRef = { id: string; code: string };

/** Products named by code or by id (line items take either), keyed by the reference given. */
export async function findProductsByRef(
  db: Db,
  workspaceId: string,
  refs: readonly string[],
): Promise<Map<string, ProductRef>> {
  const wanted = [...new Set(refs)];
  if (wanted.length === 0) return new Map();
  const rows = await db<ProductRef[]>`
    /* findProductsByRef */
    select id, code from products where workspace_id = ${workspaceId} and (code = any(${wanted}::text[]) or id = any(${wanted}::text[]))`;
  const byRef = new Map<string, ProductRef>();
  for (const ref of wanted) {
    const found = rows.find((row) => row.code === ref) ?? rows.find((row) => row.id === ref);
    if (found) byRef.set(ref, found);
  }
  return byRef;
}
