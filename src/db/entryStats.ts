import type { Db } from './sql.js';

export type EntryStatsRow = { type: string; typeVersion: number; count: string; reversalsCount: string };

/** Typed entries of a ledger counted per type and version, reversals apart. */
export async function entryStatsOfLedger(db: Db, workspaceId: string, ledgerId: string): Promise<EntryStatsRow[]> {
  return db<EntryStatsRow[]>`
    /* entryStatsOfLedger */
    select type, coalesce(type_version, 1) as "typeVersion", count(*)::text as count,
           count(*) filter (where reverses_id is not null)::text as "reversalsCount"
    from ledger_entries where workspace_id = ${workspaceId} and ledger_id = ${ledgerId} and type is not null
    group by type, coalesce(type_version, 1) order by type, 2`;
}
