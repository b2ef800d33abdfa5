/**
 * Workspaces deleted by this process, so that their clients' tokens stop working at once (a token
 * is checked by its signature alone, and one issued under a sandbox clock can outlive real time).
 * Kept for the process's life, up to `maxKept` (then the oldest go): each is a short id.
 */
export type Revocations = {
  revoke(workspaceId: string): void;
  revoked(workspaceId: string): boolean;
};

export function workspaceRevocations(maxKept = 1_000_000): Revocations {
  const revoked = new Set<string>();
  return {
    revoke(workspaceId) {
      revoked.add(workspaceId);
      // A Set iterates in insertion order: the oldest revocation goes first.
      if (revoked.size > maxKept) revoked.delete(revoked.values().next().value!);
    },
    revoked: (workspaceId) => revoked.size > 0 && revoked.has(workspaceId),
  };
}
