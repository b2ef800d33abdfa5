import type { PageRequest } from '../core/pagination.js';
import { micros, postedBoundary, type Positioned } from './ledgerLists.js';
import type { Db } from './sql.js';

// Transactions of external accounts. A deleted one keeps its row, found by id only; syncing its
// external id again adds a row with the next sequence.

export type TxRow = {
  workspaceId: string;
  id: string;
  linkId: string;
  accountId: string;
  externalId: string;
  sequence: number;
  /** numeric text: money never becomes a JS number. */
  amount: string;
  currency: string;
  description: string;
  posted: Date;
  created: Date;
  deletedAt: Date | null;
};

export const txColumns = (db: Db, t = 'ledger_external_txs') => db`
  ${db(`${t}.workspace_id`)} as "workspaceId", ${db(`${t}.id`)}, ${db(`${t}.link_id`)} as "linkId", ${db(`${t}.account_id`)} as "accountId",
  ${db(`${t}.external_id`)} as "externalId", ${db(`${t}.sequence`)}, ${db(`${t}.amount`)}::text as amount, ${db(`${t}.currency`)},
  ${db(`${t}.description`)}, ${db(`${t}.posted`)}, ${db(`${t}.created`)}, ${db(`${t}.deleted_at`)} as "deletedAt"`;

export type TxMatch = { id?: string; accountId?: string; externalId?: string };

/** By id (deleted ones included), or the live transaction with an external id in an account. */
export async function findTx(db: Db, workspaceId: string, match: TxMatch): Promise<TxRow | undefined> {
  const [row] = await db<TxRow[]>`
    /* findTx */
    select ${txColumns(db)} from ledger_external_txs
    where workspace_id = ${workspaceId}
      ${match.id !== undefined ? db`and id = ${match.id}` : db`and deleted_at is null`}
      ${match.accountId !== undefined ? db`and account_id = ${match.accountId}` : db``}
      ${match.externalId !== undefined ? db`and external_id = ${match.externalId}` : db``}
    limit 1`;
  return row;
}

export async function findTxsById(db: Db, workspaceId: string, ids: readonly string[]): Promise<TxRow[]> {
  return db<TxRow[]>`
    /* findTxsById */
    select ${txColumns(db)} from ledger_external_txs where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

/** Transactions by id, locked in id order (reconciling and deleting take them in turn). */
export async function lockTxs(db: Db, workspaceId: string, ids: readonly string[]): Promise<TxRow[]> {
  return db<TxRow[]>`
    /* lockTxs */
    select ${txColumns(db)} from ledger_external_txs
    where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[]) order by id for update`;
}

/** Live transactions of the accounts with these external ids, and each pair's highest sequence so far. */
export async function txsForSync(
  db: Db,
  workspaceId: string,
  keys: readonly { accountId: string; externalId: string }[],
): Promise<{ live: TxRow[]; lastSequence: Map<string, number> }> {
  const accountIds = keys.map((key) => key.accountId);
  const externalIds = keys.map((key) => key.externalId);
  const rows = await db<(TxRow & { lastSequence: number })[]>`
    /* txsForSync */
    with locked as (
      select t.* from unnest(${accountIds}::text[], ${externalIds}::text[]) k(account_id, external_id)
      join ledger_external_txs t on t.workspace_id = ${workspaceId} and t.account_id = k.account_id and t.external_id = k.external_id
      order by t.id for update of t)
    select ${txColumns(db, 'locked')}, max(locked.sequence) over (partition by locked.account_id, locked.external_id) as "lastSequence"
    from locked`;
  const lastSequence = new Map(rows.map((row) => [`${row.accountId}\u0000${row.externalId}`, row.lastSequence]));
  return {
    live: rows.filter((row) => row.deletedAt === null).map(({ lastSequence: _s, ...row }) => row),
    lastSequence,
  };
}

/** Inserts the transactions; one a concurrent sync inserted first is skipped (not returned). */
export async function insertTxs(db: Db, rows: readonly Omit<TxRow, 'created' | 'deletedAt'>[]): Promise<TxRow[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((row) => row[key]) as string[];
  return db<TxRow[]>`
    /* insertTxs */
    insert into ledger_external_txs as t (workspace_id, id, link_id, account_id, external_id, sequence, amount, currency, description, posted)
    select * from unnest(${column('workspaceId')}::text[], ${column('id')}::text[], ${column('linkId')}::text[], ${column('accountId')}::text[],
                         ${column('externalId')}::text[], ${column('sequence')}::integer[], ${column('amount')}::numeric[],
                         ${column('currency')}::text[], ${column('description')}::text[], ${rows.map((row) => row.posted.toISOString())}::timestamptz[])
    on conflict do nothing
    returning ${txColumns(db, 't')}`;
}

export async function updateTxDescriptions(
  db: Db,
  workspaceId: string,
  changes: readonly { id: string; description: string }[],
): Promise<void> {
  if (changes.length === 0) return;
  await db`
    /* updateTxDescriptions */
    update ledger_external_txs t set description = c.description
    from unnest(${changes.map((change) => change.id)}::text[], ${changes.map((change) => change.description)}::text[]) c(id, description)
    where t.workspace_id = ${workspaceId} and t.id = c.id`;
}

export async function markTxsDeleted(db: Db, workspaceId: string, ids: readonly string[]): Promise<TxRow[]> {
  return db<TxRow[]>`
    /* markTxsDeleted */
    update ledger_external_txs t set deleted_at = coalesce(t.deleted_at, workspace_now(${workspaceId}))
    where t.workspace_id = ${workspaceId} and t.id = any(${ids as string[]}::text[])
    returning ${txColumns(db, 't')}`;
}

/** An external account's live transactions, newest posted first, one keyset page (plus one row). */
export async function pageTxsOfAccount(
  db: Db,
  workspaceId: string,
  accountId: string,
  page: PageRequest,
): Promise<Positioned<TxRow>[]> {
  return db<Positioned<TxRow>[]>`
    /* pageTxsOfAccount */
    select ${txColumns(db, 't')}, ${micros('t.posted', db)} as "postedMicros" from ledger_external_txs t
    where t.workspace_id = ${workspaceId} and t.account_id = ${accountId} and t.deleted_at is null
      ${postedBoundary(db, page, 't.posted', 't.id')}
    order by ${page.backward ? db`t.posted asc, t.id asc` : db`t.posted desc, t.id desc`}
    limit ${page.size + 1}`;
}

/**
 * The live transactions of a linked ledger account's external account that no standing entry
 * has reconciled into that ledger account (a reversed reconciliation frees its transaction).
 */
export async function pageUnreconciledTxs(
  db: Db,
  workspaceId: string,
  ledgerAccountId: string,
  externalAccountId: string,
  page: PageRequest,
): Promise<Positioned<TxRow>[]> {
  return db<Positioned<TxRow>[]>`
    /* pageUnreconciledTxs */
    select ${txColumns(db, 't')}, ${micros('t.posted', db)} as "postedMicros" from ledger_external_txs t
    where t.workspace_id = ${workspaceId} and t.account_id = ${externalAccountId} and t.deleted_at is null
      and not exists (
        select 1 from ledger_reconciliations r
        join ledger_entries e on e.workspace_id = r.workspace_id and e.id = r.entry_id
        where r.workspace_id = t.workspace_id and r.tx_id = t.id and r.account_id = ${ledgerAccountId} and e.reversed_by_id is null)
      ${postedBoundary(db, page, 't.posted', 't.id')}
    order by ${page.backward ? db`t.posted asc, t.id asc` : db`t.posted desc, t.id desc`}
    limit ${page.size + 1}`;
}
