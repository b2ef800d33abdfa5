import type { SchemaResolvers } from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import { pageLedgers } from '../../db/ledgers.js';
import { findSchemaVersion, pageSchemaVersions } from '../../db/ledgerSchemas.js';

export const Schema: SchemaResolvers = {
  version: async (row, args, { sql }) => {
    const wanted = args.version || row.requestedVersion || undefined;
    const version = await findSchemaVersion(sql, row.workspaceId, row.key, wanted);
    if (!version) throw new DomainError('schema_not_found', `Schema ${row.key} has no version ${wanted ?? ''}.`.trim());
    return version;
  },
  versions: async (row, args, { sql, pages }) => {
    const versionPages = pages(`schema-versions:${row.key}`);
    const request = versionPages.request(args);
    const rows = await pageSchemaVersions(sql, row.workspaceId, row.key, request);
    return versionPages.page(request, rows, (version) => [String(version.version)]);
  },
  ledgers: async (row, args, { sql, pages }) => {
    const ledgerPages = pages(`schema-ledgers:${row.key}`);
    const request = ledgerPages.request(args);
    const rows = await pageLedgers(sql, row.workspaceId, request, { schemaKey: row.key });
    return ledgerPages.page(request, rows, (ledger) => [ledger.created.toISOString(), ledger.id]);
  },
};
