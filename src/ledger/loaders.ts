import DataLoader from 'dataloader';
import { findLedgerAccountsById, type LedgerAccountRow } from '../db/ledgerAccounts.js';
import { findLedgerEntriesById, linesOfEntries, type LedgerEntryRow, type LedgerLineRow } from '../db/ledgerEntries.js';
import { findLedgersById, type LedgerRow } from '../db/ledgers.js';
import type { Sql } from '../db/sql.js';

// Per-request batching of parent and child lookups: a page of 200 lines asking for their
// accounts, entries and ledgers costs one query per kind, not one per line.

export type Loaders = {
  ledger: DataLoader<string, LedgerRow | undefined>;
  account: DataLoader<string, LedgerAccountRow | undefined>;
  entry: DataLoader<string, LedgerEntryRow | undefined>;
  entryLines: DataLoader<string, LedgerLineRow[]>;
};

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
  };
}
