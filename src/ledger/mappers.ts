// Codegen mappers: resolvers of these GraphQL types receive database rows, and field resolvers
// derive the API shape from them (see codegen.yml).
import type { GroupRow } from '../db/ledgerGroups.js';
import type { SchemaRow } from '../db/ledgerSchemas.js';

export type { LedgerRow as Ledger } from '../db/ledgers.js';
export type { LedgerAccountRow as LedgerAccount } from '../db/ledgerAccounts.js';
export type { LedgerEntryRow as LedgerEntry, LedgerLineRow as LedgerLine } from '../db/ledgerEntries.js';
export type { SchemaVersionRow as SchemaVersion } from '../db/ledgerSchemas.js';
export type { WorkspaceRow as Workspace } from '../db/workspaces.js';

/** A group row; a group named by an entry comes without `created`, read from its first entry when asked. */
export type LedgerEntryGroup = Omit<GroupRow, 'created'> & { created?: Date | null };

/** A schema row, plus the version a `schema(schema: {key, version})` lookup asked for. */
export type Schema = SchemaRow & { requestedVersion?: number };

/** One account's sum in a group, with the group's workspace for loading the account. */
export type LedgerEntryGroupBalance = import('../db/ledgerGroups.js').GroupBalanceRow & { workspaceId: string };

/** A currency key as stored: a built-in code, or `CUSTOM:<customCurrencyId>` (core/currencyKeys.ts). */
export type Currency = string;

export type { LinkRow as Link, ExternalAccountRow as ExternalAccount } from '../db/links.js';
export type { TxRow as Tx } from '../db/externalTxs.js';
export type {
  LedgerMigrationRow as LedgerMigration,
  DataMigrationRow as LedgerDataMigration,
} from '../db/ledgerMigrations.js';
