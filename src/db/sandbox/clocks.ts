import type { Db, Sql } from '../sql.js';
import { STAMP_COLUMNS, type WorkspaceTable } from './workspaceTables.js';

/** A workspace's clock: frozen at `base`, or running from `base` since `setAt` (real time). */
export type ClockRow = { workspaceId: string; frozen: boolean; base: Date; setAt: Date };

// Serialises installing the stamping triggers among processes sharing the database.
const TRIGGER_LOCK = 7_310_004;
const TRIGGER = 'sandbox_clock';

export async function setClock(db: Db, workspaceId: string, frozen: boolean, base: Date): Promise<ClockRow> {
  const [row] = await db<ClockRow[]>`
    /* setClock */
    insert into sandbox_clocks (workspace_id, frozen, base, set_at) values (${workspaceId}, ${frozen}, ${base}, now())
    on conflict (workspace_id) do update set frozen = excluded.frozen, base = excluded.base, set_at = excluded.set_at
    returning workspace_id as "workspaceId", frozen, base, set_at as "setAt"`;
  return row;
}

export async function releaseClock(db: Db, workspaceId: string): Promise<void> {
  await db`/* releaseClock */ delete from sandbox_clocks where workspace_id = ${workspaceId}`;
}

/** Every clock, for a process starting (its in-memory view of the clocks). */
export async function allClocks(db: Db): Promise<ClockRow[]> {
  return db<ClockRow[]>`
    /* allClocks */ select workspace_id as "workspaceId", frozen, base, set_at as "setAt" from sandbox_clocks`;
}

/** The latest instant any row of the workspace was written or changed at; null when it holds none. */
export async function newestWrite(db: Db, tables: WorkspaceTable[], workspaceId: string): Promise<Date | null> {
  const parts = tables
    .filter((table) => table.stamped.length > 0)
    .map(
      (table) =>
        db`select max(greatest(${db(table.stamped)})) as at from ${db(table.name)} where workspace_id = ${workspaceId}`,
    );
  if (parts.length === 0) return null;
  const union = parts.reduce((all, part) => db`${all} union all ${part}`);
  const [row] = await db<{ at: Date | null }[]>`/* newestWrite */ select max(at) as at from (${union}) t`;
  return row.at;
}

/**
 * Puts the stamping trigger (functions/sandbox_clock.sql) on every table of workspace rows with a
 * stamp column, once per database: it is made when the first clock is set, so a database never
 * used with a clock never runs it.
 */
export async function ensureClockTriggers(sql: Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${TRIGGER_LOCK})`;
    const tables = await tx<{ table: string; columns: string[]; triggered: boolean }[]>`
      /* stampedTables */
      select c.relname as table, array_agg(a.attname::text order by a.attnum) as columns,
             exists (select from pg_trigger t where t.tgrelid = c.oid and t.tgname = ${TRIGGER}) as triggered
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attname = any(${[...STAMP_COLUMNS]}::text[])
      where c.relkind = 'r' and c.relname not like 'sandbox\\_%'
        and exists (select from pg_attribute w where w.attrelid = c.oid and w.attname = 'workspace_id' and not w.attisdropped)
      group by c.oid, c.relname`;
    for (const { table, columns, triggered } of tables) {
      if (triggered) continue;
      // Names from the catalogue and the fixed STAMP_COLUMNS; DDL takes no parameters.
      const args = columns.map((column) => `'${column}'`).join(', ');
      await tx.unsafe(
        `create trigger ${TRIGGER} before insert on "${table.replaceAll('"', '""')}" for each row execute function sandbox_clock_stamp(${args})`,
      );
    }
  });
}

/**
 * A server without the sandbox lives in real time: it releases the clocks a sandbox left in the
 * database and drops the stamping triggers. Answers how many clocks it released.
 */
export async function retireSandboxClocks(sql: Sql): Promise<number> {
  return sql.begin<number>(async (tx) => {
    await tx`select pg_advisory_xact_lock(${TRIGGER_LOCK})`;
    const triggered = await tx<{ table: string }[]>`
      /* triggeredTables */
      select c.relname as table from pg_trigger t
      join pg_class c on c.oid = t.tgrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      where t.tgname = ${TRIGGER}`;
    for (const { table } of triggered) {
      await tx.unsafe(`drop trigger ${TRIGGER} on "${table.replaceAll('"', '""')}"`);
    }
    const released = await tx`delete from sandbox_clocks`;
    return released.count;
  });
}
