import type { Db } from '../sql.js';

/** Holds back the fold of the workspace's queued balance deltas (idempotent). */
export async function holdFold(db: Db, workspaceId: string): Promise<void> {
  await db`
    /* holdFold */ insert into sandbox_fold_holds (workspace_id) values (${workspaceId}) on conflict do nothing`;
}

export async function releaseFold(db: Db, workspaceId: string): Promise<void> {
  await db`/* releaseFold */ delete from sandbox_fold_holds where workspace_id = ${workspaceId}`;
}

/** Every workspace held back, for a process starting (its in-memory view of the holds). */
export async function heldWorkspaces(db: Db): Promise<string[]> {
  const rows = await db<{ workspaceId: string }[]>`
    /* heldWorkspaces */ select workspace_id as "workspaceId" from sandbox_fold_holds`;
  return rows.map((row) => row.workspaceId);
}
