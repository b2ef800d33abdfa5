import type { PageRequest } from '../core/pagination.js';
import { jsonb, type Json } from './json.js';
import type { Db } from './sql.js';

export type SchemaRow = { workspaceId: string; key: string; name: string; created: Date };
export type SchemaVersionRow = {
  workspaceId: string;
  schemaKey: string;
  version: number;
  content: Json;
  contentHash: string;
  created: Date;
};

const versionColumns = (db: Db) => db`
  workspace_id as "workspaceId", schema_key as "schemaKey", version, content, content_hash as "contentHash", created`;

export async function findSchema(db: Db, workspaceId: string, key: string): Promise<SchemaRow | undefined> {
  const [row] = await db<SchemaRow[]>`
    /* findSchema */
    select workspace_id as "workspaceId", key, name, created from ledger_schemas
    where workspace_id = ${workspaceId} and key = ${key}`;
  return row;
}

/** The given version, or the latest when `version` is absent. */
export async function findSchemaVersion(
  db: Db,
  workspaceId: string,
  key: string,
  version?: number,
): Promise<SchemaVersionRow | undefined> {
  const [row] = await db<SchemaVersionRow[]>`
    /* findSchemaVersion */
    select ${versionColumns(db)} from ledger_schema_versions
    where workspace_id = ${workspaceId} and schema_key = ${key}
      ${version === undefined ? db`` : db`and version = ${version}`}
    order by version desc limit 1`;
  return row;
}

/** Creates or renames the schema and locks it, so concurrent stores of one key queue up. */
export async function upsertSchema(db: Db, workspaceId: string, key: string, name: string): Promise<SchemaRow> {
  const [row] = await db<SchemaRow[]>`
    /* upsertSchema */
    insert into ledger_schemas (workspace_id, key, name) values (${workspaceId}, ${key}, ${name})
    on conflict (workspace_id, key) do update set name = excluded.name
    returning workspace_id as "workspaceId", key, name, created`;
  return row;
}

export async function insertSchemaVersion(db: Db, row: Omit<SchemaVersionRow, 'created'>): Promise<SchemaVersionRow> {
  const [inserted] = await db<SchemaVersionRow[]>`
    /* insertSchemaVersion */
    insert into ledger_schema_versions (workspace_id, schema_key, version, content, content_hash)
    values (${row.workspaceId}, ${row.schemaKey}, ${row.version}, ${jsonb(db, row.content)}, ${row.contentHash})
    returning ${versionColumns(db)}`;
  return inserted;
}

/** Versions, newest first, one keyset page (plus one row). */
export async function pageSchemaVersions(
  db: Db,
  workspaceId: string,
  key: string,
  page: PageRequest,
): Promise<SchemaVersionRow[]> {
  const version = page.cursor ? Number(page.cursor[0]) : undefined;
  return db<SchemaVersionRow[]>`
    /* pageSchemaVersions */
    select ${versionColumns(db)} from ledger_schema_versions
    where workspace_id = ${workspaceId} and schema_key = ${key}
      ${version === undefined ? db`` : page.backward ? db`and version > ${version}` : db`and version < ${version}`}
    order by ${page.backward ? db`version asc` : db`version desc`}
    limit ${page.size + 1}`;
}

/** Schemas by key, one keyset page (plus one row). */
export async function pageSchemas(db: Db, workspaceId: string, page: PageRequest): Promise<SchemaRow[]> {
  const [key] = page.cursor ?? [];
  const boundary = key === undefined ? db`` : page.backward ? db`and key < ${key}` : db`and key > ${key}`;
  return db<SchemaRow[]>`
    /* pageSchemas */
    select workspace_id as "workspaceId", key, name, created from ledger_schemas
    where workspace_id = ${workspaceId} ${boundary}
    order by ${page.backward ? db`key desc` : db`key asc`}
    limit ${page.size + 1}`;
}

/**
 * Deletes a schema and its versions unless a live ledger uses it; deleted ledgers let go of it.
 * Answers 'in-use', 'missing' or 'deleted'.
 */
export async function deleteSchemaIfUnused(
  db: Db,
  workspaceId: string,
  key: string,
): Promise<'in-use' | 'missing' | 'deleted'> {
  const [schema] =
    await db`select 1 from ledger_schemas where workspace_id = ${workspaceId} and key = ${key} for update`;
  if (!schema) return 'missing';
  const [used] =
    await db`select 1 from ledgers where workspace_id = ${workspaceId} and schema_key = ${key} and deleted_at is null limit 1`;
  if (used) return 'in-use';
  await db`update ledgers set schema_key = null, schema_version = null where workspace_id = ${workspaceId} and schema_key = ${key}`;
  await db`delete from ledger_schema_versions where workspace_id = ${workspaceId} and schema_key = ${key}`;
  await db`delete from ledger_schemas where workspace_id = ${workspaceId} and key = ${key}`;
  return 'deleted';
}
