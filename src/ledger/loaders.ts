import DataLoader from 'dataloader';
import { findLedgerAccountsById, type LedgerAccountRow } from '../db/ledgerAccounts.js';
import { findLedgerEntriesById, linesOfEntries, type LedgerEntryRow, type LedgerLineRow } from '../db/ledgerEntries.js';
import { findLedgersById, type LedgerRow } from '../db/ledgers.js';
import { findCustomCurrencies, type CustomCurrencyRow } from '../db/customCurrencies.js';
import { findExternalAccountsById, findLinksById, type ExternalAccountRow, type LinkRow } from '../db/links.js';
import { findTxsById, type TxRow } from '../db/externalTxs.js';
import { reconciliationsOfEntries, reconciliationsOfTxs, type ReconciliationRow } from '../db/reconciliations.js';
import type { Sql } from '../db/sql.js';

// Per-request batching of parent and child lookups: a page of 200 lines asking for their
// accounts, entries and ledgers costs one query per kind, not one per line.

export type Loaders = {
  ledger: DataLoader<string, LedgerRow | undefined>;
  account: DataLoader<string, LedgerAccountRow | undefined>;
  entry: DataLoader<string, LedgerEntryRow | undefined>;
  entryLines: DataLoader<string, LedgerLineRow[]>;
  customCurrency: DataLoader<string, CustomCurrencyRow | undefined>;
  link: DataLoader<string, LinkRow | undefined>;
  externalAccount: DataLoader<string, ExternalAccountRow | undefined>;
  tx: DataLoader<string, TxRow | undefined>;
  /** Reconciliations written by an entry, by entry id. */
  entryReconciliations: DataLoader<string, ReconciliationRow[]>;
  /** Reconciliations of a transaction, by transaction id. */
  txReconciliations: DataLoader<string, ReconciliationRow[]>;
};

function grouped<T>(load: (keys: readonly string[]) => Promise<T[]>, keyOf: (row: T) => string) {
  return new DataLoader<string, T[]>(async (keys) => {
    const byKey = new Map<string, T[]>(keys.map((key) => [key, []]));
    for (const row of await load(keys)) byKey.get(keyOf(row))?.push(row);
    return keys.map((key) => byKey.get(key)!);
  });
}

function byId<T extends { id: string }>(load: (ids: readonly string[]) => Promise<T[]>) {
  return new DataLoader<string, T | undefined>(async (ids) => {
    const rows = new Map((await load(ids)).map((row) => [row.id, row]));
    return ids.map((id) => rows.get(id));
  });
}

export function createLoaders(sql: Sql, workspaceId: string): Loaders {
  return {
    ledger: byId((ids) => findLedgersById(sql, workspaceId, ids)),
    account: byId((ids) => findLedgerAccountsById(sql, workspaceId, ids)),
    entry: byId((ids) => findLedgerEntriesById(sql, workspaceId, ids)),
    entryLines: new DataLoader(async (entryIds) => {
      const byEntry = new Map<string, LedgerLineRow[]>(entryIds.map((id) => [id, []]));
      for (const line of await linesOfEntries(sql, workspaceId, entryIds)) byEntry.get(line.entryId)?.push(line);
      return entryIds.map((id) => byEntry.get(id)!);
    }),
    customCurrency: byId((ids) => findCustomCurrencies(sql, workspaceId, ids)),
    link: byId((ids) => findLinksById(sql, workspaceId, ids)),
    externalAccount: byId((ids) => findExternalAccountsById(sql, workspaceId, ids)),
    tx: byId((ids) => findTxsById(sql, workspaceId, ids)),
    entryReconciliations: grouped(
      (ids) => reconciliationsOfEntries(sql, workspaceId, ids),
      (row) => row.entryId,
    ),
    txReconciliations: grouped(
      (ids) => reconciliationsOfTxs(sql, workspaceId, ids),
      (row) => row.txId,
    ),
  };
}
