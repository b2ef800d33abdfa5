import type { Db } from './sql.js';

// Which line of which entry reconciles which external transaction into which linked account.

export type ReconciliationRow = { entryId: string; position: number; txId: string; accountId: string };
/** A reconciliation whose entry still stands (not reversed, in a live ledger), with that entry's request hash. */
export type StandingReconciliation = ReconciliationRow & { requestHash: string; ik: string };

export async function insertReconciliations(
  db: Db,
  workspaceId: string,
  rows: readonly ReconciliationRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await db`
    /* insertReconciliations */
    insert into ledger_reconciliations (workspace_id, entry_id, position, tx_id, account_id)
    select ${workspaceId}, * from unnest(${rows.map((row) => row.entryId)}::text[], ${rows.map((row) => row.position)}::smallint[],
                                         ${rows.map((row) => row.txId)}::text[], ${rows.map((row) => row.accountId)}::text[])`;
}

export async function standingReconciliations(
  db: Db,
  workspaceId: string,
  txIds: readonly string[],
): Promise<StandingReconciliation[]> {
  return db<StandingReconciliation[]>`
    /* standingReconciliations */
    select r.entry_id as "entryId", r.position, r.tx_id as "txId", r.account_id as "accountId", e.request_hash as "requestHash", e.ik
    from ledger_reconciliations r
    join ledger_entries e on e.workspace_id = r.workspace_id and e.id = r.entry_id
    join ledgers l on l.workspace_id = e.workspace_id and l.id = e.ledger_id and l.deleted_at is null
    where r.workspace_id = ${workspaceId} and r.tx_id = any(${txIds as string[]}::text[]) and e.reversed_by_id is null`;
}

export async function reconciliationsOfEntries(
  db: Db,
  workspaceId: string,
  entryIds: readonly string[],
): Promise<ReconciliationRow[]> {
  return db<ReconciliationRow[]>`
    /* reconciliationsOfEntries */
    select entry_id as "entryId", position, tx_id as "txId", account_id as "accountId" from ledger_reconciliations
    where workspace_id = ${workspaceId} and entry_id = any(${entryIds as string[]}::text[])`;
}

/** Every reconciliation of these transactions, reversed ones included. */
export async function reconciliationsOfTxs(
  db: Db,
  workspaceId: string,
  txIds: readonly string[],
): Promise<ReconciliationRow[]> {
  return db<ReconciliationRow[]>`
    /* reconciliationsOfTxs */
    select entry_id as "entryId", position, tx_id as "txId", account_id as "accountId" from ledger_reconciliations
    where workspace_id = ${workspaceId} and tx_id = any(${txIds as string[]}::text[])
    order by entry_id desc, position`;
}
