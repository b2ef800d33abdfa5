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
