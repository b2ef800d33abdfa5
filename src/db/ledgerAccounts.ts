import type { AccountType, Consistency } from '../core/ledgerAccounts.js';
import type { PageRequest } from '../core/pagination.js';
import type { Db } from './sql.js';

export type LedgerAccountRow = {
  workspaceId: string;
  ledgerId: string;
  id: string;
  ik: string;
  path: string;
  parentId: string | null;
  depth: number;
  name: string | null;
  type: AccountType;
  currencyMode: 'single' | 'multi';
  currencyCode: string | null;
  consistency: Consistency;
  requestHash: string;
  created: Date;
};

const accountColumns = (db: Db) => db`
  workspace_id as "workspaceId", ledger_id as "ledgerId", id, ik, path, parent_id as "parentId", depth, name, type,
  currency_mode as "currencyMode", currency_code as "currencyCode", consistency, request_hash as "requestHash", created`;

export type AccountMatch = { id?: string; ledgerId?: string; path?: string; ik?: string };

/** The account matching every given key, within the workspace (and ledger, when given). */
export async function findLedgerAccount(db: Db, workspaceId: string, match: AccountMatch): Promise<LedgerAccountRow | undefined> {
  const [row] = await db<LedgerAccountRow[]>`
    /* findLedgerAccount */
    select ${accountColumns(db)} from ledger_accounts
    where workspace_id = ${workspaceId}
      ${match.id !== undefined ? db`and id = ${match.id}` : db``}
      ${match.ledgerId !== undefined ? db`and ledger_id = ${match.ledgerId}` : db``}
      ${match.path !== undefined ? db`and path = ${match.path}` : db``}
      ${match.ik !== undefined ? db`and ik = ${match.ik}` : db``}
    limit 1`;
  return row;
}

/** Accounts by id, for per-request batching of parent lookups. */
export async function findLedgerAccountsById(db: Db, workspaceId: string, ids: readonly string[]): Promise<LedgerAccountRow[]> {
  return db<LedgerAccountRow[]>`
    /* findLedgerAccountsById */
    select ${accountColumns(db)} from ledger_accounts where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

export type NewLedgerAccount = Omit<LedgerAccountRow, 'created'>;

/** Inserts the account unless the ik is taken in the ledger; returns the row only when it inserted. */
export async function insertLedgerAccount(db: Db, account: NewLedgerAccount): Promise<LedgerAccountRow | undefined> {
  const [row] = await db<LedgerAccountRow[]>`
    /* insertLedgerAccount */
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, parent_id, depth, name, type, currency_mode,
                                 currency_code, consistency, request_hash)
    values (${account.workspaceId}, ${account.ledgerId}, ${account.id}, ${account.ik}, ${account.path}, ${account.parentId},
            ${account.depth}, ${account.name}, ${account.type}, ${account.currencyMode}, ${account.currencyCode},
            ${db.json(account.consistency as never)}, ${account.requestHash})
    on conflict (workspace_id, ledger_id, ik) do nothing
    returning ${accountColumns(db)}`;
  return row;
}

export async function updateLedgerAccountRow(
  db: Db, workspaceId: string, id: string, change: { name?: string; consistency?: Consistency },
): Promise<LedgerAccountRow | undefined> {
  const [row] = await db<LedgerAccountRow[]>`
    /* updateLedgerAccount */
    update ledger_accounts set
      name = ${change.name === undefined ? db`name` : db`${change.name}`},
      consistency = ${change.consistency === undefined ? db`consistency` : db`${db.json(change.consistency as never)}`}
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${accountColumns(db)}`;
  return row;
}

export type AccountFilter = {
  ledgerId?: string;
  parentId?: string;
  types?: string[];
  hasParent?: boolean;
  ids?: string[];
  parentIds?: string[];
  paths?: string[];
  pathPatterns?: string[];
  pathContains?: string;
};

/** Accounts, newest first, one keyset page (plus one row to tell whether more exist). */
export async function pageLedgerAccounts(db: Db, workspaceId: string, page: PageRequest, filter: AccountFilter): Promise<LedgerAccountRow[]> {
  const [created, id] = page.cursor ?? [];
  const boundary = page.cursor === undefined ? db``
    : page.backward ? db`and (created, id) > (${created}::timestamptz, ${id})` : db`and (created, id) < (${created}::timestamptz, ${id})`;
  return db<LedgerAccountRow[]>`
    /* pageLedgerAccounts */
    select ${accountColumns(db)} from ledger_accounts
    where workspace_id = ${workspaceId}
      ${filter.ledgerId === undefined ? db`` : db`and ledger_id = ${filter.ledgerId}`}
      ${filter.parentId === undefined ? db`` : db`and parent_id = ${filter.parentId}`}
      ${filter.types === undefined ? db`` : db`and type = any(${filter.types}::text[])`}
      ${filter.hasParent === undefined ? db`` : filter.hasParent ? db`and parent_id is not null` : db`and parent_id is null`}
      ${filter.ids === undefined ? db`` : db`and id = any(${filter.ids}::text[])`}
      ${filter.parentIds === undefined ? db`` : db`and parent_id = any(${filter.parentIds}::text[])`}
      ${filter.paths === undefined ? db`` : db`and path = any(${filter.paths}::text[])`}
      ${filter.pathPatterns === undefined ? db`` : db`and path like any(${filter.pathPatterns}::text[])`}
      ${filter.pathContains === undefined ? db`` : db`and strpos(path, ${filter.pathContains}) > 0`}
      ${boundary}
    order by ${page.backward ? db`created asc, id asc` : db`created desc, id desc`}
    limit ${page.size + 1}`;
}

/** The accounts of one ledger named by id or by path, in one query. */
export async function findAccountsOfLedger(
  db: Db, workspaceId: string, ledgerId: string, ids: readonly string[], paths: readonly string[],
): Promise<LedgerAccountRow[]> {
  return db<LedgerAccountRow[]>`
    /* findAccountsOfLedger */
    select ${accountColumns(db)} from ledger_accounts
    where workspace_id = ${workspaceId} and ledger_id = ${ledgerId}
      and (id = any(${ids as string[]}::text[]) or path = any(${paths as string[]}::text[]))`;
}
