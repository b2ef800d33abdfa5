import { newId } from '../core/ids.js';
import { jsonb } from './json.js';
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

// Roles are stored on the product, in order, as [{id, name}] (neither ever changes).
const productColumns = (db: Db) => db`
  p.workspace_id as "workspaceId", p.id, p.code, p.description, p.update_version as "updateVersion", p.created,
  p.request_hash as "requestHash", p.paid_by_roles as "paidByRoles", p.paid_to_roles as "paidToRoles"`;

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
  paidByRoles: RoleRow[];
  paidToRoles: RoleRow[];
};

/** Inserts the product with its roles; undefined when the code was taken meanwhile (nothing written). */
export async function insertProduct(db: Db, workspaceId: string, product: NewProduct): Promise<string | undefined> {
  const id = newId('prod');
  const inserted = await db`
    /* insertProduct */
    insert into products (workspace_id, id, code, description, request_hash, paid_by_roles, paid_to_roles)
    values (${workspaceId}, ${id}, ${product.code}, ${product.description}, ${product.requestHash},
            ${jsonb(db, product.paidByRoles)}, ${jsonb(db, product.paidToRoles)})
    on conflict (workspace_id, code) do nothing
    returning id`;
  return inserted.length === 0 ? undefined : id;
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
