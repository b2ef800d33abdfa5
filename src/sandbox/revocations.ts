/**
 * Workspaces deleted by this process, so that their clients' tokens stop working at once (a token
 * is checked by its signature alone). An entry is needed only while a token issued before the
 * deletion can still be unexpired, so entries older than the longest token lifetime are dropped.
 */
export type Revocations = {
  revoke(workspaceId: string): void;
  revoked(workspaceId: string): boolean;
};

export function workspaceRevocations(tokenTtlSeconds: number, now: () => number = Date.now): Revocations {
  const revokedAt = new Map<string, number>();
  const forget = () => {
    const horizon = now() - tokenTtlSeconds * 1000;
    // A Map iterates in insertion order: the oldest revocations come first.
    for (const [workspaceId, at] of revokedAt) {
      if (at > horizon) break;
      revokedAt.delete(workspaceId);
    }
  };
  return {
    revoke(workspaceId) {
      forget();
      revokedAt.set(workspaceId, now());
    },
    revoked: (workspaceId) => revokedAt.size > 0 && revokedAt.has(workspaceId),
  };
}
