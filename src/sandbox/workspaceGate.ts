/**
 * Requests of a workspace and the sandbox's rewrites of it (reset, restore, delete, clock moves)
 * exclude each other on this process: a rewrite waits for the workspace's requests in flight and
 * holds new ones until it is done. In the database a posting takes no lock a reset would wait for
 * (entries and lines name their ledger and accounts without foreign keys), so without this an
 * entry committing in the middle of a reset would outlive the data it belongs to.
 */
export type WorkspaceGate = ReturnType<typeof workspaceGate>;

type Gate = {
  requests: number;
  rewriting: boolean;
  rewritesWaiting: (() => void)[];
  requestsWaiting: (() => void)[];
};

export function workspaceGate() {
  const gates = new Map<string, Gate>();
  const gateOf = (workspaceId: string): Gate => {
    let gate = gates.get(workspaceId);
    if (!gate) {
      gate = { requests: 0, rewriting: false, rewritesWaiting: [], requestsWaiting: [] };
      gates.set(workspaceId, gate);
    }
    return gate;
  };
  // Rewrites go first (a steady stream of requests cannot starve them), one at a time.
  const wake = (workspaceId: string, gate: Gate) => {
    if (gate.rewriting) return;
    if (gate.rewritesWaiting.length > 0) {
      if (gate.requests === 0) {
        gate.rewriting = true;
        gate.rewritesWaiting.shift()!();
      }
      return;
    }
    const admitted = gate.requestsWaiting.splice(0);
    for (const admit of admitted) admit();
    // Forgotten only when idle: requests just admitted count themselves in on this same gate.
    if (admitted.length === 0 && gate.requests === 0) gates.delete(workspaceId);
  };

  return {
    /** Admits a request of the workspace once no rewrite runs or waits; call the answer when it is done. */
    async enter(workspaceId: string): Promise<() => void> {
      const gate = gateOf(workspaceId);
      while (gate.rewriting || gate.rewritesWaiting.length > 0) {
        await new Promise<void>((admit) => gate.requestsWaiting.push(admit));
      }
      gate.requests += 1;
      return () => {
        gate.requests -= 1;
        wake(workspaceId, gate);
      };
    },

    /** Runs a rewrite of the workspace alone: after its requests in flight, before any new one. */
    async exclusive<T>(workspaceId: string, rewrite: () => Promise<T>): Promise<T> {
      const gate = gateOf(workspaceId);
      await new Promise<void>((start) => {
        gate.rewritesWaiting.push(start);
        wake(workspaceId, gate);
      });
      try {
        return await rewrite();
      } finally {
        gate.rewriting = false;
        wake(workspaceId, gate);
      }
    },
  };
}
