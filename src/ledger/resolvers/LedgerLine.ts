import type { LedgerLineResolvers } from '../../../generated/ledger.js';
import { builtInCurrency } from '../../core/currencies.js';
import { lineDirection } from '../../core/entries.js';
import { findLedgerAccount } from '../../db/ledgerAccounts.js';
import { findLedgerEntry } from '../../db/ledgerEntries.js';
import { findLedger } from '../../db/ledgers.js';

export const LedgerLine: LedgerLineResolvers = {
  // Exact decimal text from PostgreSQL, canonical as Int96 output: no leading zeros, no "-0".
  amount: (row, args) => (args.absolute ? row.amount.replace(/^-/, '') : row.amount),
  type: async (row, _args, { sql }) => {
    const account = (await findLedgerAccount(sql, row.workspaceId, { id: row.accountId }))!;
    return lineDirection(account.type, BigInt(row.amount));
  },
  currency: (row) => builtInCurrency(row.currency) as never,
  account: async (row, _args, { sql }) => (await findLedgerAccount(sql, row.workspaceId, { id: row.accountId }))!,
  ledgerEntry: async (row, _args, { sql }) => (await findLedgerEntry(sql, row.workspaceId, { id: row.entryId }))!,
  ledgerEntryId: (row) => row.entryId,
  ledger: async (row, _args, { sql }) => (await findLedger(sql, row.workspaceId, { id: row.ledgerId }))!,
  posted: (row) => row.posted.toISOString(),
  created: (row) => row.created.toISOString(),
  date: (row) => row.posted.toISOString().slice(0, 10),
  tags: () => [],
  hidden: () => false,
  isReversal: () => false,
  isReversed: () => false,
  reverses: () => null,
  reversedBy: () => null,
  reversedAt: () => null,
  // Reconciliation arrives with external links; until then no line reconciles a transaction.
  tx: () => null,
  txId: () => null,
  externalTxId: () => null,
  externalTransferId: () => null,
  externalTransferType: () => null,
  otherTxId: () => null,
  otherTxExternalId: () => null,
  otherTxExternalAccountId: () => null,
  otherTxExternalAccountExternalId: () => null,
};
