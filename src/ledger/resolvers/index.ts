import type { Resolvers } from '../../../generated/ledger.js';
import { Ledger } from './Ledger.js';
import { LedgerAccount } from './LedgerAccount.js';
import { LedgerEntry } from './LedgerEntry.js';
import { LedgerLine } from './LedgerLine.js';
import { addLedgerEntry } from './Mutation/addLedgerEntry.js';
import { ledgerEntry } from './Query/ledgerEntry.js';
import { ledgerEntryHistory } from './Query/ledgerEntryHistory.js';
import { ledgerLine } from './Query/ledgerLine.js';
import { ledgerEntryGroup } from './Query/ledgerEntryGroup.js';
import { LedgerEntryGroup, LedgerEntryGroupBalance } from './LedgerEntryGroup.js';
import { reverseLedgerEntry } from './Mutation/reverseLedgerEntry.js';
import { addLedgerEntries } from './Mutation/addLedgerEntries.js';
import { deleteSchema } from './Mutation/deleteSchema.js';
import { migrateLedgerEntry } from './Mutation/migrateLedgerEntry.js';
import { updateLedgerEntry } from './Mutation/updateLedgerEntry.js';
import { createLedgerAccount } from './Mutation/createLedgerAccount.js';
import { createLedgerAccounts } from './Mutation/createLedgerAccounts.js';
import { updateLedgerAccount } from './Mutation/updateLedgerAccount.js';
import { ledgerAccount } from './Query/ledgerAccount.js';
import { createLedger } from './Mutation/createLedger.js';
import { deleteLedger } from './Mutation/deleteLedger.js';
import { storeSchema } from './Mutation/storeSchema.js';
import { updateLedger } from './Mutation/updateLedger.js';
import { ledger } from './Query/ledger.js';
import { ledgers } from './Query/ledgers.js';
import { schema } from './Query/schema.js';
import { schemas } from './Query/schemas.js';
import { workspace } from './Query/workspace.js';
import { Schema } from './Schema.js';
import { SchemaVersion } from './SchemaVersion.js';

export const resolvers: Resolvers = {
  Query: { workspace, ledger, ledgers, ledgerAccount, ledgerEntry, ledgerEntryHistory, ledgerEntryGroup, ledgerLine, schema, schemas },
  Mutation: { createLedger, updateLedger, deleteLedger, storeSchema, createLedgerAccount, createLedgerAccounts, updateLedgerAccount, addLedgerEntry,
    addLedgerEntries, reverseLedgerEntry, updateLedgerEntry, migrateLedgerEntry, deleteSchema },
  Ledger,
  LedgerAccount,
  LedgerEntry,
  LedgerLine,
  LedgerEntryGroup,
  LedgerEntryGroupBalance,
  Schema,
  SchemaVersion,
};
