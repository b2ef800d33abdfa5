import type { LedgerResolvers } from '../../../generated/ledger.js';
import { findSchema } from '../../db/ledgerSchemas.js';

export const Ledger: LedgerResolvers = {
  type: (row) => row.type,
  created: (row) => row.created.toISOString(),
  balanceUTCOffset: (row) => row.balanceUtcOffset,
  // Tally has no dashboard; a stable URN keeps the field meaningful and non-null.
  dashboardUrl: (row) => `urn:tally:ledger:${row.id}`,
  schema: async (row, _args, { sql }) => (row.schemaKey ? (await findSchema(sql, row.workspaceId, row.schemaKey)) ?? null : null),
};
