import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { sameFingerprint } from '../../core/idempotency.js';
import { splitRoleRefs, type RoleRef } from '../../core/roleRefs.js';
import { createOnce } from '../../db/createOnce.js';
import { ensureRolesByName, findProductByCode, findRolesById, insertProduct, type RoleRow } from '../../db/products.js';
import type { Db } from '../../db/sql.js';
import type { Handler } from '../handlerTypes.js';
import { presentProduct } from './present.js';

/**
 * Creates a product; roles named for the first time are created, roles given by id must exist.
 * The spec already requires at least one of the two role lists. The code is the idempotency key,
 * checked before the roles: the same code with an identical body answers the stored product
 * (200), with another body 409 `product_code_taken`. A create racing an identical one answers
 * the winner's product; the loser's transaction (and any role it named) is rolled back (db/createOnce.ts).
 */
export const createProduct: Handler<'createProduct'> = async ({ sql, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const requestHash = fingerprint(body);
  const result = await createOnce({
    // The contract answers a code held by another body with its own code, product_code_taken.
    key: { field: 'code', value: body.code, scope: 'in this workspace', code: 'product_code_taken' },
    find: () => findProductByCode(sql, workspaceId, body.code),
    same: sameFingerprint(requestHash),
    create: (taken) =>
      sql.begin(async (trx) => {
        const resolve = await roleResolver(trx, workspaceId, {
          paid_by_roles: body.paid_by_roles ?? [],
          paid_to_roles: body.paid_to_roles ?? [],
        });
        const inserted = await insertProduct(trx, workspaceId, {
          code: body.code,
          description: body.description,
          requestHash,
          paidByRoles: resolve(body.paid_by_roles ?? []),
          paidToRoles: resolve(body.paid_to_roles ?? []),
        });
        if (!inserted) taken();
        return (await findProductByCode(trx, workspaceId, body.code))!;
      }),
  });
  return result.replayed
    ? { status: 200 as const, body: { data: presentProduct(result.row) } }
    : { status: 201 as const, body: { data: presentProduct(result.row) } };
};

/** Looks every referenced role up once; returns a function from references to distinct roles, in order. */
async function roleResolver(db: Db, workspaceId: string, lists: Record<string, RoleRef[]>) {
  const { ids, names } = splitRoleRefs(Object.values(lists).flat());
  const byId = new Map((await findRolesById(db, workspaceId, ids)).map((role) => [role.id, role]));
  const violations = Object.entries(lists).flatMap(([list, refs]) =>
    refs.flatMap((ref, index) =>
      'id' in ref && !byId.has(ref.id)
        ? [{ pointer: `/body/${list}/${index}/id`, message: `role ${ref.id} does not exist` }]
        : [],
    ),
  );
  if (violations.length > 0) {
    const missing = ids.filter((id) => !byId.has(id));
    throw new DomainError('unknown_role', `No role with id ${missing.join(', ')}.`, { violations });
  }
  const byName = new Map((await ensureRolesByName(db, workspaceId, names)).map((role) => [role.name, role]));
  return (list: RoleRef[]): RoleRow[] => {
    const roles = list.map((ref) => ('id' in ref ? byId.get(ref.id) : byName.get(ref.name)) as RoleRow);
    return [...new Map(roles.map((role) => [role.id, role])).values()];
  };
}
