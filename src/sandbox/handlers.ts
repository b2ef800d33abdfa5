import type { SnapshotRow } from '../db/sandbox/snapshots.js';
import type { WorkspaceRow } from '../db/workspaces.js';
import { DomainError } from '../core/errors.js';
import { durationMs, type ClockState } from './clocks.js';
import type { SandboxHandlerTable } from './handlerTypes.js';

const DEFAULT_NAME = 'Sandbox workspace';

const workspaceOf = (row: WorkspaceRow) => ({ id: row.id, name: row.name, created: row.created.toISOString() });
const snapshotOf = (row: SnapshotRow) => ({ name: row.name, created: row.created.toISOString(), rows: row.rows });

/** Every operation of spec/sandbox.openapi.yaml (the type makes the table cover the contract exactly). */
export const sandboxHandlers: SandboxHandlerTable = {
  async createSandboxWorkspace({ body, store }) {
    const { workspace, client } = await store.createWorkspace(body?.name ?? DEFAULT_NAME);
    return {
      status: 201,
      body: {
        data: {
          workspace: workspaceOf(workspace),
          client: { client_id: client.clientId, client_secret: client.clientSecret },
        },
      },
    };
  },
  async listSandboxWorkspaces({ store }) {
    return { status: 200, body: { data: (await store.listWorkspaces()).map(workspaceOf) } };
  },
  async getSandboxWorkspace({ path, store }) {
    return { status: 200, body: { data: workspaceOf(await store.getWorkspace(path.workspace_id)) } };
  },
  async deleteSandboxWorkspace({ path, store, faults }) {
    await store.deleteWorkspace(path.workspace_id);
    faults.clear(path.workspace_id);
    return { status: 200, body: { data: { id: path.workspace_id, deleted: true } } };
  },
  async resetSandboxWorkspace({ path, store }) {
    return { status: 200, body: { data: workspaceOf(await store.resetWorkspace(path.workspace_id)) } };
  },
  async createSandboxSnapshot({ path, body, store }) {
    const snapshot = await store.saveSnapshot(path.workspace_id, body.name, body.replace ?? false);
    return { status: 201, body: { data: snapshotOf(snapshot) } };
  },
  async listSandboxSnapshots({ path, store }) {
    return { status: 200, body: { data: (await store.listSnapshots(path.workspace_id)).map(snapshotOf) } };
  },
  async restoreSandboxSnapshot({ path, store }) {
    return { status: 200, body: { data: snapshotOf(await store.restoreSnapshot(path.workspace_id, path.name)) } };
  },
  async deleteSandboxSnapshot({ path, store }) {
    return { status: 200, body: { data: snapshotOf(await store.deleteSnapshot(path.workspace_id, path.name)) } };
  },
  async createSandboxFault({ path, body, store, faults }) {
    await store.getWorkspace(path.workspace_id);
    return { status: 201, body: { data: faults.add(path.workspace_id, body) } };
  },
  async listSandboxFaults({ path, store, faults }) {
    await store.getWorkspace(path.workspace_id);
    return { status: 200, body: { data: faults.list(path.workspace_id) } };
  },
  async clearSandboxFaults({ path, store, faults }) {
    await store.getWorkspace(path.workspace_id);
    faults.clear(path.workspace_id);
    return { status: 200, body: { data: [] } };
  },
  async deleteSandboxFault({ path, store, faults }) {
    await store.getWorkspace(path.workspace_id);
    return { status: 200, body: { data: faults.remove(path.workspace_id, path.fault_id) } };
  },
  async getSandboxBalanceFold({ path, store }) {
    return { status: 200, body: { data: await store.balanceFold(path.workspace_id) } };
  },
  async holdSandboxBalances({ path, store }) {
    return { status: 200, body: { data: await store.holdFold(path.workspace_id) } };
  },
  async releaseSandboxBalances({ path, store }) {
    return { status: 200, body: { data: await store.releaseFold(path.workspace_id) } };
  },
  async settleSandboxBalances({ path, store }) {
    return { status: 200, body: { data: await store.settleBalances(path.workspace_id) } };
  },
  async getSandboxClock({ path, store }) {
    return { status: 200, body: { data: clockOf(await store.clock(path.workspace_id)) } };
  },
  async freezeSandboxClock({ path, body, store }) {
    const at = body?.at === undefined ? (await store.clock(path.workspace_id)).now : instant(body.at, '/body/at');
    return { status: 200, body: { data: clockOf(await store.moveClock(path.workspace_id, at, true)) } };
  },
  async advanceSandboxClock({ path, body, store }) {
    const by = durationMs(body.by);
    if (!by) {
      throw new DomainError('invalid_request', 'The clock advances by a positive duration.', {
        violations: [{ pointer: '/body/by', message: 'must be a positive duration' }],
      });
    }
    const current = await store.clock(path.workspace_id);
    const to = instant(new Date(current.now.getTime() + by).toISOString(), '/body/by');
    return {
      status: 200,
      body: { data: clockOf(await store.moveClock(path.workspace_id, to, current.mode === 'frozen')) },
    };
  },
  async setSandboxClock({ path, body, store }) {
    const to = instant(body.to, '/body/to');
    return { status: 200, body: { data: clockOf(await store.moveClock(path.workspace_id, to, body.frozen ?? true)) } };
  },
  async releaseSandboxClock({ path, store }) {
    return { status: 200, body: { data: clockOf(await store.moveClock(path.workspace_id, null, false)) } };
  },
};

const clockOf = (state: ClockState) => ({ mode: state.mode, now: state.now.toISOString() });

// The years balance history covers; a clock outside them could stamp rows no period can read.
const FIRST_INSTANT = Date.UTC(1970, 0, 1);
const LAST_INSTANT = Date.UTC(10000, 0, 1) - 1;

/** A contract-valid RFC 3339 instant as a Date, within the years 1970 to 9999. */
function instant(text: string, pointer: string): Date {
  const at = new Date(text);
  if (Number.isNaN(at.getTime()) || at.getTime() < FIRST_INSTANT || at.getTime() > LAST_INSTANT) {
    throw new DomainError('invalid_request', 'The clock stays within the years 1970 to 9999.', {
      violations: [{ pointer, message: 'must be an instant from 1970 to 9999' }],
    });
  }
  return at;
}
