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
import { Currency } from './Currency.js';
import { ExternalAccount } from './ExternalAccount.js';
import { CustomLink, Link, ProviderLink } from './Link.js';
import {
  LedgerAccountDataMigration,
  LedgerDataMigration,
  LedgerEntryDataMigration,
  LedgerMigration,
} from './migrations.js';
import { Tx } from './Tx.js';
import { createCustomCurrency } from './Mutation/createCustomCurrency.js';
import { createCustomLink } from './Mutation/createCustomLink.js';
import { createPayment } from './Mutation/createPayment.js';
import { deleteCustomTxs } from './Mutation/deleteCustomTxs.js';
import { reconcileTx } from './Mutation/reconcileTx.js';
import { syncCustomAccounts } from './Mutation/syncCustomAccounts.js';
import { syncCustomTxs } from './Mutation/syncCustomTxs.js';
import { customCurrencies } from './Query/customCurrencies.js';
import { externalAccount } from './Query/externalAccount.js';
import { link, links } from './Query/links.js';
import { tx } from './Query/tx.js';
import { SchemaVersion } from './SchemaVersion.js';

export const resolvers: Resolvers = {
  Query: {
    workspace,
    ledger,
    ledgers,
    ledgerAccount,
    ledgerEntry,
    ledgerEntryHistory,
    ledgerEntryGroup,
    ledgerLine,
    schema,
    schemas,
    customCurrencies,
    link,
    links,
    externalAccount,
    tx,
  },
  Mutation: {
    createLedger,
    updateLedger,
    deleteLedger,
    storeSchema,
    createLedgerAccount,
    createLedgerAccounts,
    updateLedgerAccount,
    addLedgerEntry,
    addLedgerEntries,
    reverseLedgerEntry,
    updateLedgerEntry,
    migrateLedgerEntry,
    deleteSchema,
    createCustomCurrency,
    createCustomLink,
    syncCustomAccounts,
    syncCustomTxs,
    deleteCustomTxs,
    reconcileTx,
    createPayment,
  },
  Currency,
  Link,
  CustomLink,
  ProviderLink,
  ExternalAccount,
  Tx,
  LedgerMigration,
  LedgerDataMigration,
  LedgerEntryDataMigration,
  LedgerAccountDataMigration,
  Ledger,
  LedgerAccount,
  LedgerEntry,
  LedgerLine,
  LedgerEntryGroup,
  LedgerEntryGroupBalance,
  Schema,
  SchemaVersion,
};
