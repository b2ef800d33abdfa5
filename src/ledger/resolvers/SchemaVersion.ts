import type { SchemaVersionResolvers } from '../../../generated/ledger.js';
import { MAX_PAGE_SIZE } from '../../core/pagination.js';
import { migrationsToVersion } from '../../db/ledgerMigrations.js';

export const SchemaVersion: SchemaVersionResolvers = {
  created: (row) => row.created.toISOString(),
  json: (row) => row.content,
  // The field takes no page arguments: the newest migrations, up to the largest page.
  migrations: async (row, _args, { sql }) => {
    const rows = await migrationsToVersion(sql, row.workspaceId, row.schemaKey, row.version, MAX_PAGE_SIZE + 1);
    return {
      nodes: rows.slice(0, MAX_PAGE_SIZE),
      pageInfo: {
        hasNextPage: rows.length > MAX_PAGE_SIZE,
        hasPreviousPage: false,
        startCursor: null,
        endCursor: null,
      },
    };
  },
};
