import type { PageRequest } from '../core/pagination.js';
import { newestFirst } from './keyset.js';
import type { Db } from './sql.js';

export type LedgerRow = {
  workspaceId: string;
  id: string;
  ik: string;
  name: string;
  type: 'double';
  balanceUtcOffset: string;
  schemaKey: string | null;
  schemaVersion: number | null;
  requestHash: string;
  created: Date;
};

export const ledgerColumns = (db: Db) => db`
  workspace_id as "workspaceId", id, ik, name, type, balance_utc_offset as "balanceUtcOffset",
  schema_key as "schemaKey", schema_version as "schemaVersion", request_hash as "requestHash", created`;

export type LedgerMatch = { id?: string | null; ik?: string | null };

/** The live ledger matching every given key of `match` (id, ik or both), within the workspace. */
export async function findLedger(db: Db, workspaceId: string, match: LedgerMatch): Promise<LedgerRow | undefined> {
  const [row] = await db<LedgerRow[]>`
    /* findLedger */
    select ${ledgerColumns(db)} from ledgers
    where workspace_id = ${workspaceId} and deleted_at is null
      ${match.id != null ? db`and id = ${match.id}` : db``}
      ${match.ik != null ? db`and ik = ${match.ik}` : db``}`;
  return row;
}

export type NewLedger = Omit<LedgerRow, 'created'>;

/** Inserts the ledger unless a live one holds the ik; returns the row only when it inserted. */
export async function insertLedger(db: Db, ledger: NewLedger): Promise<LedgerRow | undefined> {
  const [row] = await db<LedgerRow[]>`
    /* insertLedger */
    insert into ledgers (workspace_id, id, ik, name, type, balance_utc_offset, schema_key, schema_version, request_hash)
    values (${ledger.workspaceId}, ${ledger.id}, ${ledger.ik}, ${ledger.name}, ${ledger.type},
            ${ledger.balanceUtcOffset}, ${ledger.schemaKey}, ${ledger.schemaVersion}, ${ledger.requestHash})
    on conflict (workspace_id, ik) where deleted_at is null do nothing
    returning ${ledgerColumns(db)}`;
  return row;
}

/** When the ik was last released by a deletion still inside `graceSeconds`, the time it frees up. */
export async function ikReleasedAt(
  db: Db,
  workspaceId: string,
  ik: string,
  graceSeconds: number,
): Promise<Date | undefined> {
  const [row] = await db<{ freeAt: Date }[]>`
    /* ikReleasedAt */
    select max(deleted_at) + make_interval(secs => ${graceSeconds}) as "freeAt" from ledgers
    where workspace_id = ${workspaceId} and ik = ${ik} and deleted_at > workspace_now(${workspaceId}) - make_interval(secs => ${graceSeconds})`;
  return row?.freeAt ?? undefined;
}

export async function renameLedger(
  db: Db,
  workspaceId: string,
  id: string,
  name: string,
): Promise<LedgerRow | undefined> {
  const [row] = await db<LedgerRow[]>`
    /* renameLedger */
    update ledgers set name = ${name}
    where workspace_id = ${workspaceId} and id = ${id} and deleted_at is null
    returning ${ledgerColumns(db)}`;
  return row;
}

export async function softDeleteLedger(db: Db, workspaceId: string, id: string): Promise<boolean> {
  const rows = await db`
    /* softDeleteLedger */
    update ledgers set deleted_at = workspace_now(${workspaceId})
    where workspace_id = ${workspaceId} and id = ${id} and deleted_at is null`;
  return rows.count === 1;
}

/** Live ledgers, newest first, one keyset page (plus one row to tell whether more exist). */
export type LedgerFilter = { schemaKey?: string; hasSchema?: boolean };

export async function pageLedgers(
  db: Db,
  workspaceId: string,
  page: PageRequest,
  filter: LedgerFilter = {},
): Promise<LedgerRow[]> {
  const { boundary, order } = newestFirst(db, page);
  return db<LedgerRow[]>`
    /* pageLedgers */
    select ${ledgerColumns(db)} from ledgers
    where workspace_id = ${workspaceId} and deleted_at is null
      ${filter.schemaKey === undefined ? db`` : db`and schema_key = ${filter.schemaKey}`}
      ${filter.hasSchema === undefined ? db`` : filter.hasSchema ? db`and schema_key is not null` : db`and schema_key is null`}
      ${boundary}
    order by ${order} limit ${page.size + 1}`;
}

/** Live ledgers on a schema, locked, for migrating them to a new version. */
export async function lockLedgersOnSchema(db: Db, workspaceId: string, schemaKey: string): Promise<LedgerRow[]> {
  return db<LedgerRow[]>`
    /* lockLedgersOnSchema */
    select ${ledgerColumns(db)} from ledgers
    where workspace_id = ${workspaceId} and schema_key = ${schemaKey} and deleted_at is null
    order by id for update`;
}

/**
 * Locks the ledger of an account about to change. The change renews the ledger's posting revision
 * (a trigger updates the ledger row): taking the ledger first keeps the order a schema store
 * takes them in (ledgers, then accounts), so the two never deadlock.
 */
export async function lockLedgerForAccountChange(db: Db, workspaceId: string, ledgerId: string): Promise<void> {
  await db`
    /* lockLedgerForAccountChange */
    select 1 from ledgers where workspace_id = ${workspaceId} and id = ${ledgerId} for no key update`;
}

export async function setLedgerSchemaVersion(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
  version: number,
): Promise<void> {
  await db`
    /* setLedgerSchemaVersion */
    update ledgers set schema_version = ${version} where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

/** Ledgers by id (deleted ones too: their entries and accounts still name them), for per-request batching. */
export async function findLedgersById(db: Db, workspaceId: string, ids: readonly string[]): Promise<LedgerRow[]> {
  return db<LedgerRow[]>`
    /* findLedgersById */
    select ${ledgerColumns(db)} from ledgers where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}
