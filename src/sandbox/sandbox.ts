import type { Middleware } from 'koa';
import type { Sql } from '../db/sql.js';
import type { AppState } from '../http/context.js';
import { createSandboxApi } from './api.js';
import { requestFaults, type RequestFaults } from './faultInjection.js';
import { faultRules } from './faults.js';
import { workspaceRevocations } from './revocations.js';
import { allClocks } from '../db/sandbox/clocks.js';
import { heldWorkspaces } from '../db/sandbox/foldHolds.js';
import { workspaceClocks } from './clocks.js';
import { sandboxStore } from './store.js';

export type Sandbox = {
  /** The admin API under /sandbox. */
  middleware: Middleware<AppState>;
  /** Tokens of workspaces deleted through the admin API no longer count. */
  revoked: (workspaceId: string) => boolean;
  /** Where the ledger and billing APIs meet injected faults. */
  faults: RequestFaults;
  /** Whether a workspace's eventual balance reads lag (its fold is held back). */
  balancesLag: (workspaceId: string) => boolean;
  /** The workspace's clock, when it has one; undefined: real time. */
  now: (workspaceId: string) => Date | undefined;
};

/** Everything the sandbox adds to a server (TALLY_SANDBOX=1): its admin API and its hooks in the other APIs. */
export async function createSandbox(options: {
  sql: Sql;
  adminToken: string;
  tokenTtlSeconds: number;
}): Promise<Sandbox> {
  const revocations = workspaceRevocations(options.tokenTtlSeconds);
  const rules = faultRules();
  const clocks = workspaceClocks(await allClocks(options.sql));
  const store = sandboxStore(options.sql, revocations, clocks, await heldWorkspaces(options.sql));
  const middleware = await createSandboxApi({
    store,
    faults: rules,
    adminToken: options.adminToken,
  });
  return {
    middleware,
    revoked: (workspaceId) => revocations.revoked(workspaceId),
    faults: requestFaults(rules),
    balancesLag: (workspaceId) => store.balancesLag(workspaceId),
    now: (workspaceId) => clocks.now(workspaceId),
  };
}
