import type { SchemaVersionResolvers } from '../../../generated/ledger.js';

export const SchemaVersion: SchemaVersionResolvers = {
  created: (row) => row.created.toISOString(),
  json: (row) => row.content,
};
