import type { components } from '../../../generated/billing.js';
import type { ProductRow } from '../../db/products.js';

export type Product = components['schemas']['Product'];

/** A product as both SDK generations read it: camelCase per the spec doc, snake_case aliases too. */
export function presentProduct(row: ProductRow): Product {
  return {
    id: row.id,
    code: row.code,
    created: row.created.toISOString(),
    description: row.description,
    paid_by_roles: row.paidByRoles,
    paid_to_roles: row.paidToRoles,
    updateVersion: row.updateVersion,
    update_version: row.updateVersion,
    workspaceId: row.workspaceId,
    workspace_id: row.workspaceId,
  };
}
