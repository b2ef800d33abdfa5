import type { SnapshotRow } from '../db/sandbox/snapshots.js';
import type { WorkspaceRow } from '../db/workspaces.js';
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
};
