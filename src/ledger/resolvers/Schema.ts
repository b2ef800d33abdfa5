import type { SchemaResolvers } from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import { pageRequest, toPage } from '../../core/pagination.js';
import { pageLedgers } from '../../db/ledgers.js';
import { findSchemaVersion, pageSchemaVersions } from '../../db/ledgerSchemas.js';

export const Schema: SchemaResolvers = {
  version: async (row, args, { sql }) => {
    const wanted = args.version || row.requestedVersion || undefined;
    const version = await findSchemaVersion(sql, row.workspaceId, row.key, wanted);
    if (!version) throw new DomainError('schema_not_found', `Schema ${row.key} has no version ${wanted ?? ''}.`.trim());
    return version;
  },
  versions: async (row, args, { sql }) => {
    const request = pageRequest(args);
    const rows = await pageSchemaVersions(sql, row.workspaceId, row.key, request);
    return toPage(request, rows, (version) => [String(version.version)]);
  },
  ledgers: async (row, args, { sql }) => {
    const request = pageRequest(args);
    const rows = await pageLedgers(sql, row.workspaceId, request, { schemaKey: row.key });
    return toPage(request, rows, (ledger) => [ledger.created.toISOString(), ledger.id]);
  },
};
