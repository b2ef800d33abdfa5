import type { LedgerResolvers } from '../../../generated/ledger.js';
import { findSchema } from '../../db/ledgerSchemas.js';

export const Ledger: LedgerResolvers = {
  type: (row) => row.type,
  created: (row) => row.created.toISOString(),
  balanceUTCOffset: (row) => row.balanceUtcOffset,
  // Tally has no web console; the contract promises a stable URN instead.
  dashboardUrl: (row) => `urn:tally:ledger:${row.id}`,
  // A ledger created on a given schema version reports that version.
  schema: async (row, _args, { sql }) => {
    const schema = row.schemaKey ? await findSchema(sql, row.workspaceId, row.schemaKey) : undefined;
    return schema ? { ...schema, requestedVersion: row.schemaVersion ?? undefined } : null;
  },
};
