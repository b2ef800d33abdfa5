import { DomainError } from './errors.js';

export type RoleRef = { id: string } | { name: string };

/** The distinct role ids and names a product refers to, first mention first. */
export function splitRoleRefs(refs: RoleRef[]): { ids: string[]; names: string[] } {
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const ref of refs) {
    if ('id' in ref) ids.add(ref.id);
    else names.add(ref.name);
  }
  return { ids: [...ids], names: [...names] };
}

/** A product needs someone who pays or someone who is paid: at least one of the two role lists. */
export function requireSomeRoles(paidBy: RoleRef[] | undefined, paidTo: RoleRef[] | undefined): void {
  if (paidBy === undefined && paidTo === undefined) {
    throw new DomainError('invalid_request', 'Provide paid_by_roles, paid_to_roles, or both.', {
      violations: [{ pointer: '/body', message: 'must have property paid_by_roles or paid_to_roles' }],
    });
  }
}
