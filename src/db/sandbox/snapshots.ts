import type { TransactionSql } from 'postgres';
import { DomainError } from '../../core/errors.js';
import type { Db, Sql } from '../sql.js';
import { deleteWorkspaceData } from './workspaceData.js';
import type { WorkspaceTable, WorkspaceTables } from './workspaceTables.js';

export type SnapshotRow = { name: string; created: Date; rows: number };

type StoredSnapshot = SnapshotRow & { id: string; layout: string };

// Shadow tables mirror the workspace tables column for column, after a leading snapshot_id, in
// the schema tally_snapshots (made by the sandbox migration).
const SHADOW_SCHEMA = 'tally_snapshots';
// Serialises making shadow tables among processes sharing the database.
const SHADOW_LOCK = 7_310_003;

const shadowOf = (table: WorkspaceTable) => `${SHADOW_SCHEMA}.${table.name}`;

/**
 * Makes every shadow table match its workspace table. One whose columns differ (a migration ran
 * since) is made again: the snapshots it held were saved under another layout and are refused
 * at restore anyway (snapshot_outdated).
 */
export async function ensureShadowTables(sql: Sql, tables: WorkspaceTable[]): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${SHADOW_LOCK})`;
    const existing = await tx<{ table: string; columns: string[] }[]>`
      /* shadowTableColumns */
      select c.relname as table, array_agg(a.attname::text order by a.attnum) as columns
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = ${SHADOW_SCHEMA}
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where c.relkind = 'r'
      group by c.relname`;
    const columnsOf = new Map(existing.map((row) => [row.table, row.columns.join(',')]));
    for (const table of tables) {
      const wanted = ['snapshot_id', ...table.columns].join(',');
      if (columnsOf.get(table.name) === wanted) continue;
      if (columnsOf.has(table.name)) await tx`drop table ${tx(shadowOf(table))}`;
      await tx`create table ${tx(shadowOf(table))} (snapshot_id text not null, like ${tx(`public.${table.name}`)})`;
      await tx`create index on ${tx(shadowOf(table))} (snapshot_id)`;
    }
  });
}

export async function listSnapshots(db: Db, workspaceId: string): Promise<SnapshotRow[]> {
  return db<SnapshotRow[]>`
    /* listSnapshots */
    select name, created, row_count::int as rows from sandbox_snapshots
    where workspace_id = ${workspaceId} order by created, name`;
}

/**
 * Copies the workspace's data under `name`, as of one moment (a repeatable-read transaction sees
 * one snapshot of the database). With `replace`, a snapshot of that name is overwritten.
 */
export async function saveSnapshot(
  sql: Sql,
  layout: WorkspaceTables,
  workspaceId: string,
  name: string,
  options: { id: string; replace: boolean },
): Promise<SnapshotRow> {
  return sql.begin<SnapshotRow>('isolation level repeatable read', async (tx) => {
    const [taken] = await tx<StoredSnapshot[]>`
      select id from sandbox_snapshots where workspace_id = ${workspaceId} and name = ${name} for update`;
    if (taken && !options.replace) {
      throw new DomainError('snapshot_exists', `A snapshot named ${name} exists; send replace true to overwrite it.`);
    }
    if (taken) await dropSnapshotRows(tx, layout.tables, workspaceId, taken.id);
    let rows = 0;
    for (const table of layout.tables) {
      const copied = await tx`
        insert into ${tx(shadowOf(table))}
        select ${options.id}, t.* from ${tx(table.name)} t where t.workspace_id = ${workspaceId}`;
      rows += copied.count;
    }
    const [saved] = await tx<SnapshotRow[]>`
      insert into sandbox_snapshots (workspace_id, name, id, layout, row_count)
      values (${workspaceId}, ${name}, ${options.id}, ${layout.layout}, ${rows})
      returning name, created, row_count::int as rows`;
    return saved;
  });
}

/**
 * Replaces the workspace's data with the snapshot's, in the transaction given. Identity columns
 * (the balance queue's sequence) take fresh values. The foreign-key checks stay on: skipping them
 * (session_replication_role) saved nothing measurable on a restore, and they keep a write of the
 * workspace that races the restore from leaving a row without its parent.
 */
export async function restoreSnapshot(
  tx: TransactionSql,
  layout: WorkspaceTables,
  workspaceId: string,
  name: string,
): Promise<SnapshotRow> {
  // FOR SHARE: a save that replaces it, or a delete, waits until the restore has copied every table.
  const snapshot = await findSnapshot(tx, workspaceId, name, 'share');
  if (snapshot.layout !== layout.layout) {
    throw new DomainError(
      'snapshot_outdated',
      `The snapshot ${name} was saved before the database schema last changed; save it again.`,
    );
  }
  await deleteWorkspaceData(tx, layout.tables, workspaceId);
  // The rows come back with the times they were written at, whatever the workspace's clock says.
  await tx`select set_config('tally.restoring', 'on', true)`;
  for (const table of layout.tables) {
    await tx`
      insert into ${tx(table.name)} (${tx(table.writable)})
      select ${tx(table.writable)} from ${tx(shadowOf(table))} where snapshot_id = ${snapshot.id}`;
  }
  return { name: snapshot.name, created: snapshot.created, rows: snapshot.rows };
}

export async function deleteSnapshot(
  sql: Sql,
  tables: WorkspaceTable[],
  workspaceId: string,
  name: string,
): Promise<SnapshotRow> {
  return sql.begin(async (tx) => {
    const snapshot = await findSnapshot(tx, workspaceId, name, 'update');
    await dropSnapshotRows(tx, tables, workspaceId, snapshot.id);
    return { name: snapshot.name, created: snapshot.created, rows: snapshot.rows };
  });
}

/** Every snapshot of the workspace, rows and records (when the workspace itself is deleted). */
export async function deleteAllSnapshots(tx: Db, tables: WorkspaceTable[], workspaceId: string): Promise<void> {
  const snapshots = await tx<{ id: string }[]>`select id from sandbox_snapshots where workspace_id = ${workspaceId}`;
  for (const { id } of snapshots) await dropSnapshotRows(tx, tables, workspaceId, id);
}

async function findSnapshot(
  tx: Db,
  workspaceId: string,
  name: string,
  lock: 'update' | 'share',
): Promise<StoredSnapshot> {
  const [snapshot] = await tx<StoredSnapshot[]>`
    /* findSnapshot */
    select name, id, layout, created, row_count::int as rows from sandbox_snapshots
    where workspace_id = ${workspaceId} and name = ${name} ${lock === 'update' ? tx`for update` : tx`for share`}`;
  if (!snapshot) throw new DomainError('snapshot_not_found', `The workspace has no snapshot named ${name}.`);
  return snapshot;
}

async function dropSnapshotRows(tx: Db, tables: WorkspaceTable[], workspaceId: string, id: string): Promise<void> {
  for (const table of tables) await tx`delete from ${tx(shadowOf(table))} where snapshot_id = ${id}`;
  await tx`delete from sandbox_snapshots where workspace_id = ${workspaceId} and id = ${id}`;
}
