import type {
  LedgerAccountDataMigrationResolvers,
  LedgerDataMigrationResolvers,
  LedgerEntryDataMigrationResolvers,
  LedgerMigrationResolvers,
} from '../../../generated/ledger.js';
import { WHOLE_PAGE, type PageArgs } from '../../core/pagination.js';
import type { DataMigrationRow } from '../../db/ledgerMigrations.js';
import { findSchemaVersion } from '../../db/ledgerSchemas.js';
import type { GqlContext } from '../context.js';
import { dataMigrationStatus, entriesToMigrate } from '../schemas/migrationLists.js';

export const LedgerMigration: LedgerMigrationResolvers = {
  ledger: async (row, _args, { load }) => (await load.ledger.load(row.ledgerId))!,
  schemaVersion: async (row, _args, { sql }) =>
    (await findSchemaVersion(sql, row.workspaceId, row.schemaKey, row.schemaVersion))!,
  status: (row) => row.status,
};

// One history record per data migration: the schema version that started it, with its status now.
const dataMigrationFields = {
  status: (row: DataMigrationRow) => dataMigrationStatus(row),
  currentMigration: (row: DataMigrationRow) => ({ schemaVersion: row.schemaVersion, status: dataMigrationStatus(row) }),
  history: (row: DataMigrationRow) => ({
    nodes: [{ schemaVersion: row.schemaVersion, status: dataMigrationStatus(row) }],
    pageInfo: WHOLE_PAGE,
  }),
  ledgerEntries: (row: DataMigrationRow, args: PageArgs, ctx: GqlContext) => entriesToMigrate(ctx, row, args),
};

export const LedgerEntryDataMigration: LedgerEntryDataMigrationResolvers = {
  ...dataMigrationFields,
  entryType: (row) => row.entryType!,
  typeVersion: (row) => row.typeVersion!,
};

export const LedgerAccountDataMigration: LedgerAccountDataMigrationResolvers = {
  ...dataMigrationFields,
  accountPath: (row) => row.accountPath!,
};

export const LedgerDataMigration: LedgerDataMigrationResolvers = {
  __resolveType: (row) => (row.kind === 'entry' ? 'LedgerEntryDataMigration' : 'LedgerAccountDataMigration'),
};
