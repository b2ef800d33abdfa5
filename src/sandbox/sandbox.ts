import type { Middleware } from 'koa';
import type { Sql } from '../db/sql.js';
import type { AppContext, AppState } from '../http/context.js';
import { createSandboxApi } from './api.js';
import { requestFaults, runWithFault, type RequestFaults } from './faultInjection.js';
import { faultRules } from './faults.js';
import { workspaceRevocations } from './revocations.js';
import { allClocks, ensureClockTriggers } from '../db/sandbox/clocks.js';
import { heldWorkspaces } from '../db/sandbox/foldHolds.js';
import { workspaceClocks } from './clocks.js';
import { sandboxStore } from './store.js';
import { workspaceGate, type WorkspaceGate } from './workspaceGate.js';

export type Sandbox = {
  /** The admin API under /sandbox. */
  middleware: Middleware<AppState>;
  /** Tokens of workspaces deleted through the admin API no longer count. */
  revoked: (workspaceId: string) => boolean;
  /** Where the ledger and billing APIs meet injected faults. */
  faults: RequestFaults;
  /** Requests of a workspace wait while the admin API rewrites it (reset, restore, delete, clock moves). */
  gate: WorkspaceGate;
  /** A billing request's handling in the sandbox: through the gate, then as its faults say. */
  aroundRestRequest: (ctx: AppContext, operationId: string, work: () => Promise<void>) => Promise<void>;
  /** Whether a workspace's eventual balance reads lag (its fold is held back). */
  balancesLag: (workspaceId: string) => boolean;
  /** The workspace's clock, when it has one; undefined: real time. */
  now: (workspaceId: string) => Date | undefined;
};

/** Everything the sandbox adds to a server (TALLY_SANDBOX=1): its admin API and its hooks in the other APIs. */
export async function createSandbox(options: { sql: Sql; adminToken: string }): Promise<Sandbox> {
  const revocations = workspaceRevocations();
  const rules = faultRules();
  const initialClocks = await allClocks(options.sql);
  // A server started without the sandbox drops the stamping triggers; clocks set before need them back.
  if (initialClocks.length > 0) await ensureClockTriggers(options.sql);
  const clocks = workspaceClocks(initialClocks);
  const gate = workspaceGate();
  const store = sandboxStore(options.sql, { revocations, clocks, gate }, await heldWorkspaces(options.sql));
  const faults = requestFaults(rules);
  const middleware = await createSandboxApi({
    store,
    faults: rules,
    adminToken: options.adminToken,
  });
  return {
    middleware,
    revoked: (workspaceId) => revocations.revoked(workspaceId),
    faults,
    gate,
    aroundRestRequest: async (ctx, operationId, work) => {
      const release = await gate.enter(ctx.state.caller!.workspaceId);
      try {
        await runWithFault(ctx, faults.mayApply(ctx) ? faults.faultFor(ctx, [operationId])?.fault : undefined, work);
      } finally {
        release();
      }
    },
    balancesLag: (workspaceId) => store.balancesLag(workspaceId),
    now: (workspaceId) => clocks.now(workspaceId),
  };
}
