import type { AccountType, Consistency } from '../core/ledgerAccounts.js';
import type { PageRequest } from '../core/pagination.js';
import { jsonb } from './json.js';
import { newestFirst } from './keyset.js';
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
  /** The external account this account reconciles, for linked accounts. */
  linkedAccountId: string | null;
  requestHash: string;
  created: Date;
};

/** Columns of an account row; `a` names the table alias in queries that join. */
export const accountColumns = (db: Db, a = 'ledger_accounts') => db`
  ${db(`${a}.workspace_id`)} as "workspaceId", ${db(`${a}.ledger_id`)} as "ledgerId", ${db(`${a}.id`)}, ${db(`${a}.ik`)},
  ${db(`${a}.path`)}, ${db(`${a}.parent_id`)} as "parentId", ${db(`${a}.depth`)}, ${db(`${a}.name`)}, ${db(`${a}.type`)},
  ${db(`${a}.currency_mode`)} as "currencyMode", ${db(`${a}.currency_code`)} as "currencyCode", ${db(`${a}.consistency`)},
  ${db(`${a}.linked_account_id`)} as "linkedAccountId", ${db(`${a}.request_hash`)} as "requestHash", ${db(`${a}.created`)}`;

export type AccountMatch = { id?: string; ledgerId?: string; path?: string; ik?: string };

/** The account matching every given key, within the workspace (and ledger, when given). */
export async function findLedgerAccount(
  db: Db,
  workspaceId: string,
  match: AccountMatch,
): Promise<LedgerAccountRow | undefined> {
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
export async function findLedgerAccountsById(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<LedgerAccountRow[]> {
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
                                 currency_code, consistency, linked_account_id, request_hash)
    values (${account.workspaceId}, ${account.ledgerId}, ${account.id}, ${account.ik}, ${account.path}, ${account.parentId},
            ${account.depth}, ${account.name}, ${account.type}, ${account.currencyMode}, ${account.currencyCode},
            ${jsonb(db, account.consistency)}, ${account.linkedAccountId}, ${account.requestHash})
    on conflict (workspace_id, ledger_id, ik) do nothing
    returning ${accountColumns(db)}`;
  return row;
}

export async function updateLedgerAccountRow(
  db: Db,
  workspaceId: string,
  id: string,
  change: { name?: string; consistency?: Consistency },
): Promise<LedgerAccountRow | undefined> {
  const [row] = await db<LedgerAccountRow[]>`
    /* updateLedgerAccountRow */
    update ledger_accounts set
      name = ${change.name === undefined ? db`name` : db`${change.name}`},
      consistency = ${change.consistency === undefined ? db`consistency` : db`${jsonb(db, change.consistency)}`}
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
  linked?: boolean;
  linkedAccountIds?: string[];
};

/** Accounts, newest first, one keyset page (plus one row to tell whether more exist). */
export async function pageLedgerAccounts(
  db: Db,
  workspaceId: string,
  page: PageRequest,
  filter: AccountFilter,
): Promise<LedgerAccountRow[]> {
  const { boundary, order } = newestFirst(db, page);
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
      ${filter.linked === undefined ? db`` : filter.linked ? db`and linked_account_id is not null` : db`and linked_account_id is null`}
      ${
        filter.linkedAccountIds === undefined
          ? db``
          : db`and linked_account_id = any(${filter.linkedAccountIds}::text[])
        and exists (select 1 from ledgers l
          where l.workspace_id = ledger_accounts.workspace_id and l.id = ledger_accounts.ledger_id and l.deleted_at is null)`
      }
      ${boundary}
    order by ${order} limit ${page.size + 1}`;
}

/** Inserts many accounts in one statement (parents may precede their children in the list). */
export async function insertLedgerAccounts(db: Db, accounts: readonly NewLedgerAccount[]): Promise<void> {
  if (accounts.length === 0) return;
  const column = <K extends keyof NewLedgerAccount>(key: K) => accounts.map((account) => account[key]);
  await db`
    /* insertLedgerAccounts */
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, parent_id, depth, name, type, currency_mode,
                                 currency_code, consistency, linked_account_id, request_hash)
    select t.workspace_id, t.ledger_id, t.id, t.ik, t.path, t.parent_id, t.depth, t.name, t.type, t.currency_mode,
           t.currency_code, t.consistency::jsonb, t.linked_account_id, t.request_hash
    from unnest(${column('workspaceId')}::text[], ${column('ledgerId')}::text[], ${column('id')}::text[],
                ${column('ik')}::text[], ${column('path')}::text[], ${column('parentId')}::text[],
                ${column('depth')}::smallint[], ${column('name')}::text[], ${column('type')}::text[],
                ${column('currencyMode')}::text[], ${column('currencyCode')}::text[],
                ${accounts.map((account) => JSON.stringify(account.consistency))}::text[], ${column('linkedAccountId')}::text[],
                ${column('requestHash')}::text[])
      as t(workspace_id, ledger_id, id, ik, path, parent_id, depth, name, type, currency_mode, currency_code, consistency, linked_account_id,
           request_hash)`;
}

/** Id and path of every account of a ledger (schema migrations compare them with the chart). */
export async function accountPathsOfLedger(
  db: Db,
  workspaceId: string,
  ledgerId: string,
): Promise<{ id: string; path: string }[]> {
  return db<{ id: string; path: string }[]>`
    /* accountPathsOfLedger */
    select id, path from ledger_accounts where workspace_id = ${workspaceId} and ledger_id = ${ledgerId}`;
}

/** Sets names (null keeps the name) and consistency of many accounts at once, as a schema version says. */
export async function updateAccountAttributes(
  db: Db,
  workspaceId: string,
  changes: readonly { id: string; name: string | null; consistency: Consistency }[],
): Promise<void> {
  if (changes.length === 0) return;
  await db`
    /* updateAccountAttributes */
    update ledger_accounts a set name = coalesce(t.name, a.name), consistency = t.consistency::jsonb
    from unnest(${changes.map((change) => change.id)}::text[], ${changes.map((change) => change.name) as string[]}::text[],
                ${changes.map((change) => JSON.stringify(change.consistency))}::text[]) as t(id, name, consistency)
    where a.workspace_id = ${workspaceId} and a.id = t.id
      and (a.name is distinct from coalesce(t.name, a.name) or a.consistency <> t.consistency::jsonb)`;
}

/**
 * Creates the planned template instances that do not exist yet (create_planned_accounts: no
 * ledger-wide lock, a concurrent creator of the same path is waited for) and maps each planned
 * id to the id of the account holding its path now.
 */
export async function createPlannedAccounts(
  db: Db,
  accounts: readonly NewLedgerAccount[],
): Promise<Map<string, string>> {
  if (accounts.length === 0) return new Map();
  const rows = await db<{ plannedId: string; accountId: string }[]>`
    /* createPlannedAccounts */
    select planned_id as "plannedId", account_id as "accountId" from create_planned_accounts(${jsonb(db, accounts)})`;
  return new Map(rows.map((row) => [row.plannedId, row.accountId]));
}
