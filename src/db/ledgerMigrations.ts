import type { LedgerMigrationStatus } from '../../generated/ledger.js';
import type { PageRequest } from '../core/pagination.js';
import { jsonb } from './json.js';
import type { Db } from './sql.js';

// Records of schema changes: each ledger's move to a schema version, and the data a version
// left behind (entries of superseded entry type versions, lines on archived or disabled accounts).

export type LedgerMigrationRow = {
  workspaceId: string;
  ledgerId: string;
  schemaKey: string;
  schemaVersion: number;
  status: LedgerMigrationStatus;
  created: Date;
};
export type DataMigrationRow = {
  workspaceId: string;
  ledgerId: string;
  kind: 'entry' | 'account';
  subject: string;
  entryType: string | null;
  typeVersion: number | null;
  accountPath: string | null;
  schemaVersion: number;
  /** Standing entries still written under the old definition. */
  remaining: number;
};
export type NewDataMigration = Omit<DataMigrationRow, 'workspaceId' | 'ledgerId' | 'remaining'>;

const migrationColumns = (db: Db) => db`
  workspace_id as "workspaceId", ledger_id as "ledgerId", schema_key as "schemaKey", schema_version as "schemaVersion", status, created`;

export async function recordLedgerMigrations(
  db: Db,
  workspaceId: string,
  schemaKey: string,
  version: number,
  ledgerIds: readonly string[],
): Promise<void> {
  if (ledgerIds.length === 0) return;
  await db`
    /* recordLedgerMigrations */
    insert into ledger_migrations (workspace_id, ledger_id, schema_key, schema_version, status)
    select ${workspaceId}, ledger_id, ${schemaKey}, ${version}, 'completed' from unnest(${ledgerIds as string[]}::text[]) as t(ledger_id)
    on conflict do nothing`;
}

/** A ledger's migrations, newest version first, one keyset page (plus one row). */
export async function pageLedgerMigrations(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  page: PageRequest,
): Promise<LedgerMigrationRow[]> {
  const version = page.cursor ? Number(page.cursor[0]) : undefined;
  return db<LedgerMigrationRow[]>`
    /* pageLedgerMigrations */
    select ${migrationColumns(db)} from ledger_migrations
    where workspace_id = ${workspaceId} and ledger_id = ${ledgerId}
      ${version === undefined || !Number.isInteger(version) ? db`` : page.backward ? db`and schema_version > ${version}` : db`and schema_version < ${version}`}
    order by ${page.backward ? db`schema_version asc` : db`schema_version desc`}
    limit ${page.size + 1}`;
}

/** Migrations of live ledgers to one schema version, newest first (at most `limit`). */
export async function migrationsToVersion(
  db: Db,
  workspaceId: string,
  schemaKey: string,
  version: number,
  limit: number,
): Promise<LedgerMigrationRow[]> {
  return db<LedgerMigrationRow[]>`
    /* migrationsToVersion */
    select ${migrationColumns(db)} from ledger_migrations m
    where workspace_id = ${workspaceId} and schema_key = ${schemaKey} and schema_version = ${version}
      and exists (select 1 from ledgers l where l.workspace_id = m.workspace_id and l.id = m.ledger_id and l.deleted_at is null)
    order by created desc, ledger_id desc limit ${limit}`;
}

export async function recordDataMigrations(
  db: Db,
  workspaceId: string,
  ledgerIds: readonly string[],
  items: readonly NewDataMigration[],
): Promise<void> {
  if (ledgerIds.length === 0 || items.length === 0) return;
  await db`
    /* recordDataMigrations */
    insert into ledger_data_migrations (workspace_id, ledger_id, kind, subject, entry_type, type_version, account_path, schema_version)
    select ${workspaceId}, l.ledger_id, i.kind, i.subject, i.entry_type, i.type_version, i.account_path, i.schema_version
    from unnest(${ledgerIds as string[]}::text[]) as l(ledger_id),
         jsonb_to_recordset(${jsonb(
           db,
           items.map((item) => ({
             kind: item.kind,
             subject: item.subject,
             entry_type: item.entryType,
             type_version: item.typeVersion,
             account_path: item.accountPath,
             schema_version: item.schemaVersion,
           })),
         )}) as i(kind text, subject text, entry_type text, type_version integer, account_path text, schema_version integer)
    on conflict do nothing`;
}

/**
 * A ledger's data migrations of one kind, each with the number of standing (neither reversed
 * nor reversing) entries still written under the old definition. A ledger has few of them.
 */
export async function dataMigrationsOfLedger(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  kind: 'entry' | 'account',
): Promise<DataMigrationRow[]> {
  return db<DataMigrationRow[]>`
    /* dataMigrationsOfLedger */
    select d.workspace_id as "workspaceId", d.ledger_id as "ledgerId", d.kind, d.subject, d.entry_type as "entryType",
           d.type_version as "typeVersion", d.account_path as "accountPath", d.schema_version as "schemaVersion",
           (select count(*)::integer from ledger_entries e
            where e.workspace_id = d.workspace_id and e.ledger_id = d.ledger_id and e.reversed_by_id is null and e.reverses_id is null
              and ${
                kind === 'entry'
                  ? db`e.type = d.entry_type and e.type_version = d.type_version`
                  : db`exists (select 1 from ledger_lines l join ledger_accounts a on a.workspace_id = l.workspace_id and a.id = l.account_id
                             where l.workspace_id = e.workspace_id and l.entry_id = e.id and a.path ~ chart_path_pattern(d.account_path))`
              }) as remaining
    from ledger_data_migrations d
    where d.workspace_id = ${workspaceId} and d.ledger_id = ${ledgerId} and d.kind = ${kind}
    order by d.subject`;
}
