import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../core/ids.js';
import { closeOpenHours, foldBalanceQueue, pendingDeltas } from '../db/balanceFold.js';
import { retryingOn, retryingRaces } from '../db/deadlocks.js';
import { ensureClockTriggers, newestWrite, releaseClock, setClock } from '../db/sandbox/clocks.js';
import { holdFold, releaseFold } from '../db/sandbox/foldHolds.js';
import { DomainError } from '../core/errors.js';
import { createClient, createWorkspace, type Credential } from '../db/provision.js';
import {
  deleteAllSnapshots,
  deleteSnapshot,
  ensureShadowTables,
  listSnapshots,
  restoreSnapshot,
  saveSnapshot,
  type SnapshotRow,
} from '../db/sandbox/snapshots.js';
import { deleteWorkspaceData } from '../db/sandbox/workspaceData.js';
import { readWorkspaceTables, type WorkspaceTables } from '../db/sandbox/workspaceTables.js';
import type { Db, Sql } from '../db/sql.js';
import { findWorkspace, listWorkspaces, type WorkspaceRow } from '../db/workspaces.js';
import type { ClockState, WorkspaceClocks } from './clocks.js';
import type { Revocations } from './revocations.js';
import type { WorkspaceGate } from './workspaceGate.js';

export type BalanceFoldState = { held: boolean; pending: number };

const SETTLE_BATCH = 5000;
const SETTLE_RETRY_MS = 10;
// Rounds a settle may also spend waiting for another fold to finish.
const SETTLE_SPARE_ROUNDS = 200;

/** The sandbox's operations on workspaces, each acting on the one workspace it names. */
export type SandboxStore = ReturnType<typeof sandboxStore>;

export function sandboxStore(
  sql: Sql,
  { revocations, clocks, gate }: { revocations: Revocations; clocks: WorkspaceClocks; gate: WorkspaceGate },
  initiallyHeld: readonly string[] = [],
) {
  // Workspaces whose fold is held back, mirrored in memory: every balance read asks.
  const held = new Set(initiallyHeld);
  // Stamping triggers are installed once, when the first clock is set.
  let triggers: Promise<void> | undefined;
  const ensureTriggers = () =>
    (triggers ??= ensureClockTriggers(sql).catch((error: unknown) => {
      triggers = undefined;
      throw error;
    }));
  // Read on first use, then kept: the schema does not change while the process runs.
  let layout: Promise<WorkspaceTables> | undefined;
  const tables = () =>
    (layout ??= (async () => {
      const read = await readWorkspaceTables(sql);
      await ensureShadowTables(sql, read.tables);
      return read;
    })().catch((error: unknown) => {
      layout = undefined; // a failed read (database away) is tried again by the next call
      throw error;
    }));

  return {
    async createWorkspace(name: string): Promise<{ workspace: WorkspaceRow; client: Credential }> {
      return sql.begin(async (tx) => {
        const id = await createWorkspace(tx, name);
        const client = await createClient(tx, id, { name: 'sandbox' });
        return { workspace: await existing(tx, id), client };
      });
    },

    listWorkspaces: () => listWorkspaces(sql),

    getWorkspace: (workspaceId: string) => existing(sql, workspaceId),

    /** Everything the workspace holds, its clients and snapshots included; its tokens stop working. */
    async deleteWorkspace(workspaceId: string): Promise<void> {
      const { tables: data, sandboxTables } = await tables();
      await gate.exclusive(workspaceId, () =>
        retryingRaces(() =>
          sql.begin(async (tx) => {
            await lockWorkspace(tx, workspaceId);
            await deleteAllSnapshots(tx, data, workspaceId);
            await deleteWorkspaceData(tx, data, workspaceId);
            for (const table of sandboxTables) await tx`delete from ${tx(table)} where workspace_id = ${workspaceId}`;
            await tx`delete from api_clients where workspace_id = ${workspaceId}`;
            await tx`delete from workspaces where id = ${workspaceId}`;
          }),
        ),
      );
      revocations.revoke(workspaceId);
      held.delete(workspaceId);
      clocks.release(workspaceId);
    },

    async resetWorkspace(workspaceId: string): Promise<WorkspaceRow> {
      const { tables: data } = await tables();
      return gate.exclusive(workspaceId, () =>
        retryingRaces(() =>
          sql.begin<WorkspaceRow>(async (tx) => {
            const workspace = await lockWorkspace(tx, workspaceId);
            await deleteWorkspaceData(tx, data, workspaceId);
            return workspace;
          }),
        ),
      );
    },

    async saveSnapshot(workspaceId: string, name: string, replace: boolean): Promise<SnapshotRow> {
      await existing(sql, workspaceId);
      const layout = await tables();
      // Two saves replacing one name at once: the later repeatable-read transaction fails (40001) and runs again.
      return retryingOn(
        ['40001'],
        () => saveSnapshot(sql, layout, workspaceId, name, { id: newId('snap'), replace }),
        3,
      );
    },

    async listSnapshots(workspaceId: string): Promise<SnapshotRow[]> {
      await existing(sql, workspaceId);
      return listSnapshots(sql, workspaceId);
    },

    async restoreSnapshot(workspaceId: string, name: string): Promise<SnapshotRow> {
      const current = await tables();
      return gate.exclusive(workspaceId, () =>
        retryingRaces(() =>
          sql.begin<SnapshotRow>(async (tx) => {
            await lockWorkspace(tx, workspaceId);
            return restoreSnapshot(tx, current, workspaceId, name);
          }),
        ),
      );
    },

    /** Whether the workspace's eventual balance reads leave out what the fold has not taken. */
    balancesLag: (workspaceId: string): boolean => held.size > 0 && held.has(workspaceId),

    async balanceFold(workspaceId: string): Promise<BalanceFoldState> {
      await existing(sql, workspaceId);
      return { held: held.has(workspaceId), pending: await pendingDeltas(sql, workspaceId) };
    },

    async holdFold(workspaceId: string): Promise<BalanceFoldState> {
      await existing(sql, workspaceId);
      await holdFold(sql, workspaceId);
      held.add(workspaceId);
      return { held: true, pending: await pendingDeltas(sql, workspaceId) };
    },

    async releaseFold(workspaceId: string): Promise<BalanceFoldState> {
      await existing(sql, workspaceId);
      await releaseFold(sql, workspaceId);
      held.delete(workspaceId);
      return { held: false, pending: await pendingDeltas(sql, workspaceId) };
    },

    /** Folds every delta the workspace has queued, now, held or not (the hold stays). */
    async settleBalances(workspaceId: string): Promise<BalanceFoldState> {
      await existing(sql, workspaceId);
      // Open hours too: the latest hour of each balance row is a queued delta until closed.
      await closeOpenHours(sql, workspaceId);
      // What was queued when asked, and not forever: a workspace that keeps posting keeps queueing.
      const rounds = Math.ceil((await pendingDeltas(sql, workspaceId)) / SETTLE_BATCH) + SETTLE_SPARE_ROUNDS;
      for (let round = 0; round < rounds; round++) {
        const { folded } = await foldBalanceQueue(sql, SETTLE_BATCH, workspaceId);
        if (folded > 0) continue;
        if ((await pendingDeltas(sql, workspaceId)) === 0) break;
        await sleep(SETTLE_RETRY_MS); // another fold holds the fold lock: wait for it
      }
      return { held: held.has(workspaceId), pending: await pendingDeltas(sql, workspaceId) };
    },

    async clock(workspaceId: string): Promise<ClockState> {
      await existing(sql, workspaceId);
      return clocks.state(workspaceId);
    },

    /**
     * Sets the workspace's clock (frozen at, or running from, `to`), or back to real time with
     * `to` null. Refused when the new now would come before the newest row the workspace holds.
     */
    async moveClock(workspaceId: string, to: Date | null, frozen: boolean): Promise<ClockState> {
      await existing(sql, workspaceId);
      const layout = await tables();
      await ensureTriggers();
      // Alone with the workspace: no write of it can land between the check and the move.
      return gate.exclusive(workspaceId, async () => {
        const target = to ?? new Date();
        const newest = await newestWrite(sql, layout.tables, workspaceId);
        if (newest && target.getTime() < newest.getTime()) {
          throw new DomainError(
            'clock_backwards',
            `The workspace holds data written at ${newest.toISOString()}; its clock cannot go back to ${target.toISOString()}. Reset the workspace first to go back further.`,
            { newest_write: newest.toISOString() },
          );
        }
        if (to === null) {
          await releaseClock(sql, workspaceId);
          clocks.release(workspaceId);
        } else {
          clocks.set(await setClock(sql, workspaceId, frozen, to));
        }
        return clocks.state(workspaceId);
      });
    },

    async deleteSnapshot(workspaceId: string, name: string): Promise<SnapshotRow> {
      await existing(sql, workspaceId);
      return deleteSnapshot(sql, (await tables()).tables, workspaceId, name);
    },
  };
}

async function existing(db: Db, workspaceId: string): Promise<WorkspaceRow> {
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw new DomainError('workspace_not_found', `No workspace has the id ${workspaceId}.`);
  return workspace;
}

/**
 * Takes the workspace row, so resets, restores and deletes of one workspace run one at a time.
 * FOR NO KEY UPDATE leaves the workspace's own writes (which only reference the row) unblocked.
 */
async function lockWorkspace(tx: Db, workspaceId: string): Promise<WorkspaceRow> {
  const [workspace] = await tx<WorkspaceRow[]>`
    /* lockWorkspace */
    select id, name, created from workspaces where id = ${workspaceId} for no key update`;
  if (!workspace) throw new DomainError('workspace_not_found', `No workspace has the id ${workspaceId}.`);
  return workspace;
}
