import { buildChart, type Chart } from '../../core/chart.js';
import { DomainError } from '../../core/errors.js';
import type { SchemaContent } from '../../core/ledgerSchemas.js';
import { findSchemaVersion } from '../../db/ledgerSchemas.js';
import type { Db } from '../../db/sql.js';

// Schema versions are immutable, so their parsed form (content + flattened chart) is cached by
// content hash: the posting path needs the chart and entry types without a query.

export type LoadedSchema = { key: string; version: number; content: SchemaContent; chart: Chart };

const MAX_CACHED = 256;
const byHash = new Map<string, LoadedSchema>();

export function parsedSchema(key: string, version: number, content: SchemaContent, contentHash: string): LoadedSchema {
  let loaded = byHash.get(contentHash);
  if (!loaded || loaded.version !== version) {
    loaded = { key, version, content, chart: buildChart(content.chartOfAccounts) };
    if (byHash.size >= MAX_CACHED) byHash.delete(byHash.keys().next().value!);
    byHash.set(contentHash, loaded);
  }
  return loaded;
}

/** The version a ledger is on; its hash, when known, saves the query on a cache hit. */
export async function loadSchemaVersion(
  db: Db,
  workspaceId: string,
  key: string,
  version: number,
  contentHash?: string,
): Promise<LoadedSchema> {
  const cached = contentHash === undefined ? undefined : byHash.get(contentHash);
  if (cached && cached.key === key && cached.version === version) return cached;
  const row = await findSchemaVersion(db, workspaceId, key, version);
  if (!row) throw new DomainError('schema_not_found', `Schema ${key} has no version ${version}.`);
  return parsedSchema(key, version, row.content as SchemaContent, row.contentHash);
}
