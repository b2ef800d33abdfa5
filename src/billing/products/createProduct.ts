import { DomainError } from '../../core/errors.js';
import { splitRoleRefs, type RoleRef } from '../../core/roleRefs.js';
import { ensureRolesByName, findProductByCode, findRolesById, insertProduct, type RoleRow } from '../../db/products.js';
import type { Db } from '../../db/sql.js';
import type { Handler } from '../handler.js';
import { presentProduct } from './present.js';

/**
 * Creates a product; roles named for the first time are created, roles given by id must exist.
 * The spec already requires at least one of the two role lists.
 */
export const createProduct: Handler<'createProduct'> = async ({ sql, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const product = await sql.begin(async (tx) => {
    const resolve = await roleResolver(tx, workspaceId, {
      paid_by_roles: body.paid_by_roles ?? [],
      paid_to_roles: body.paid_to_roles ?? [],
    });
    await insertProduct(tx, workspaceId, {
      code: body.code,
      description: body.description,
      roles: [
        { relation: 'paid_by', roleIds: resolve(body.paid_by_roles ?? []) },
        { relation: 'paid_to', roleIds: resolve(body.paid_to_roles ?? []) },
      ],
    });
    return findProductByCode(tx, workspaceId, body.code);
  });
  return { status: 201, body: { data: presentProduct(product!) } };
};

/** Looks every referenced role up once; returns a function from references to distinct role ids. */
async function roleResolver(db: Db, workspaceId: string, lists: Record<string, RoleRef[]>) {
  const { ids, names } = splitRoleRefs(Object.values(lists).flat());
  const byId = new Map((await findRolesById(db, workspaceId, ids)).map((role) => [role.id, role]));
  const violations = Object.entries(lists).flatMap(([list, refs]) => refs.flatMap((ref, index) =>
    'id' in ref && !byId.has(ref.id) ? [{ pointer: `/body/${list}/${index}/id`, message: `role ${ref.id} does not exist` }] : []));
  if (violations.length > 0) {
    const missing = ids.filter((id) => !byId.has(id));
    throw new DomainError('unknown_role', `No role with id ${missing.join(', ')}.`, { violations });
  }
  const byName = new Map((await ensureRolesByName(db, workspaceId, names)).map((role) => [role.name, role]));
  return (list: RoleRef[]) => [...new Set(list.map((ref) => ('id' in ref ? byId.get(ref.id) : byName.get(ref.name)) as RoleRow)
    .map((role) => role.id))];
}
