import { createHash } from 'node:crypto';
import type { Db } from '../sql.js';

/** A table holding one kind of a workspace's data, as the sandbox copies and deletes it. */
export type WorkspaceTable = {
  name: string;
  /** Every column, in table order (what `select *` gives and a shadow table mirrors). */
  columns: string[];
  /** The columns a restore writes: identity (`generated always`) and generated columns get fresh values. */
  writable: string[];
  /** Its columns holding when a row was written, which follow a workspace's sandbox clock. */
  stamped: string[];
};

/** Columns stamped with "now" when a row is written or changed (created, modified, generated_at). */
export const STAMP_COLUMNS = new Set(['created', 'modified', 'generated_at']);

export type WorkspaceTables = {
  /** Parents before children: the order to insert in (and, reversed, to delete in). */
  tables: WorkspaceTable[];
  /** A digest of every table's columns and types: snapshots are restorable only under the same one. */
  layout: string;
  /** The sandbox's own records of a workspace (snapshots, holds): kept by a reset, gone with the workspace. */
  sandboxTables: string[];
};

// Tables of a workspace that a reset keeps: its identity, its clients and the sandbox's own records.
const KEPT = new Set(['workspaces', 'api_clients']);
const isSandboxTable = (name: string) => name.startsWith('sandbox_');

type ColumnRow = { table: string; column: string; type: string; fresh: boolean };
type ReferenceRow = { child: string; parent: string };

/**
 * The workspace tables, read from the catalogue rather than listed by hand: every table of the
 * public schema with a `workspace_id` column, so a table a later migration adds is reset and
 * snapshotted without anyone remembering to. Read once per process (the schema is fixed while it runs).
 */
export async function readWorkspaceTables(db: Db): Promise<WorkspaceTables> {
  const columns = await db<ColumnRow[]>`
    /* workspaceTableColumns */
    select c.relname as table, a.attname as column, format_type(a.atttypid, a.atttypmod) as type,
           (a.attidentity = 'a' or a.attgenerated <> '') as fresh
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    where c.relkind in ('r', 'p')
      and exists (select 1 from pg_attribute w where w.attrelid = c.oid and w.attname = 'workspace_id' and not w.attisdropped)
    order by c.relname, a.attnum`;
  const references = await db<ReferenceRow[]>`
    /* workspaceTableReferences */
    select child.relname as child, parent.relname as parent
    from pg_constraint k
    join pg_class child on child.oid = k.conrelid
    join pg_class parent on parent.oid = k.confrelid
    join pg_namespace n on n.oid = child.relnamespace and n.nspname = 'public'
    where k.contype = 'f' and child.oid <> parent.oid`;

  const sandboxTables = [...new Set(columns.filter((row) => isSandboxTable(row.table)).map((row) => row.table))];
  const byName = new Map<string, WorkspaceTable>();
  for (const row of columns) {
    if (KEPT.has(row.table) || isSandboxTable(row.table)) continue;
    let table = byName.get(row.table);
    if (!table) byName.set(row.table, (table = { name: row.table, columns: [], writable: [], stamped: [] }));
    table.columns.push(row.column);
    if (!row.fresh) table.writable.push(row.column);
    if (STAMP_COLUMNS.has(row.column)) table.stamped.push(row.column);
  }
  const tables = parentsFirst(byName, references);
  const layout = createHash('sha256')
    .update(
      JSON.stringify(columns.filter((row) => byName.has(row.table)).map((row) => [row.table, row.column, row.type])),
    )
    .digest('base64url');
  return { tables, layout, sandboxTables };
}

/** Kahn's algorithm over the foreign keys among the tables; ties broken by name, so the order is stable. */
function parentsFirst(byName: Map<string, WorkspaceTable>, references: ReferenceRow[]): WorkspaceTable[] {
  const parentsOf = new Map<string, Set<string>>([...byName.keys()].map((name) => [name, new Set()]));
  for (const { child, parent } of references) {
    if (byName.has(child) && byName.has(parent)) parentsOf.get(child)!.add(parent);
  }
  const ordered: WorkspaceTable[] = [];
  const placed = new Set<string>();
  while (ordered.length < byName.size) {
    const ready = [...parentsOf.entries()]
      .filter(([name, parents]) => !placed.has(name) && [...parents].every((parent) => placed.has(parent)))
      .map(([name]) => name)
      .sort();
    if (ready.length === 0) throw new Error('workspace tables reference each other in a cycle');
    for (const name of ready) {
      placed.add(name);
      ordered.push(byName.get(name)!);
    }
  }
  return ordered;
}
