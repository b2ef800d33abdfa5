import type { Db } from '../sql.js';
import type { WorkspaceTable } from './workspaceTables.js';

/**
 * Deletes every row of the workspace's data, children first. Queued balance deltas go before the
 * balances they feed, the order the fold takes its locks in, so a reset and a fold never deadlock.
 */
export async function deleteWorkspaceData(tx: Db, tables: WorkspaceTable[], workspaceId: string): Promise<number> {
  let deleted = 0;
  for (const table of [...tables].reverse()) {
    const result = await tx`delete from ${tx(table.name)} where workspace_id = ${workspaceId}`;
    deleted += result.count;
  }
  return deleted;
}
