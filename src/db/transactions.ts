import type { Tag } from '../core/billingTags.js';
import { newId } from '../core/ids.js';
import { groupedCallAnswer, oneRowPerCall, sqlRefusal, type GroupedCallError, type SqlRefusal } from './errors.js';
import { WRITE_ALONE } from './groupCommit.js';
import { jsonb } from './json.js';
import type { Db } from './sql.js';
import type { components } from '../../generated/billing.js';

type CurrencyCode = components['schemas']['CurrencyCode'];

export type BillingExternalAccount = { id: string; externalId: string };

export type TransactionRow = {
  id: string;
  externalId: string;
  accountId: string;
  accountExternalId: string;
  /** numeric as exact text: money never becomes a JS number. */
  amount: string;
  currency: CurrencyCode;
  posted: Date;
  tags: Tag[];
  allocated: string;
  requestHash: string;
  created: Date;
};

export type AllocationRow = {
  id: string;
  transactionId: string;
  transactionExternalId: string;
  position: number;
  invoiceId: string;
  userId: string;
  userExternalId: string;
  type: 'invoice_payin' | 'invoice_payout';
  amount: string;
  posted: Date;
};

const transactionColumns = (db: Db) => db`
  t.id, t.external_id as "externalId", t.account_id as "accountId", a.external_id as "accountExternalId",
  t.amount::text as amount, t.currency, t.posted, t.tags, t.allocated::text as allocated, t.request_hash as "requestHash", t.created`;

const allocationColumns = (db: Db) => db`
  al.id, al.transaction_id as "transactionId", t.external_id as "transactionExternalId", al.position, al.invoice_id as "invoiceId",
  al.user_id as "userId", u.external_id as "userExternalId", al.type, al.amount::text as amount, t.posted`;

export async function findBillingExternalAccount(
  db: Db,
  workspaceId: string,
  ref: { id?: string; externalId?: string },
): Promise<BillingExternalAccount | undefined> {
  const [row] = await db<BillingExternalAccount[]>`
    /* findBillingExternalAccount */
    select id, external_id as "externalId" from external_accounts
    where workspace_id = ${workspaceId} ${ref.id !== undefined ? db`and id = ${ref.id}` : db``}
      ${ref.externalId !== undefined ? db`and external_id = ${ref.externalId}` : db``}`;
  return row;
}

/** The account with this external id, created on first reference (one round trip when it exists or is new). */
export async function ensureBillingExternalAccount(
  db: Db,
  workspaceId: string,
  externalId: string,
): Promise<BillingExternalAccount> {
  const [row] = await db<BillingExternalAccount[]>`
    /* ensureBillingExternalAccount */
    with inserted as (
      insert into external_accounts (workspace_id, id, external_id) values (${workspaceId}, ${newId('ext_account')}, ${externalId})
      on conflict (workspace_id, external_id) do nothing
      returning id, external_id
    )
    select id, external_id as "externalId" from inserted
    union all
    select id, external_id from external_accounts where workspace_id = ${workspaceId} and external_id = ${externalId}`;
  // Created by a concurrent request after this statement's snapshot: it is committed now.
  return row ?? (await findBillingExternalAccount(db, workspaceId, { externalId }))!;
}

export async function findTransactionByExternalId(
  db: Db,
  workspaceId: string,
  externalId: string,
): Promise<TransactionRow | undefined> {
  const [row] = await db<TransactionRow[]>`
    /* findTransactionByExternalId */
    select ${transactionColumns(db)} from billing_transactions t
    join external_accounts a on a.workspace_id = t.workspace_id and a.id = t.account_id
    where t.workspace_id = ${workspaceId} and t.external_id = ${externalId}`;
  return row;
}

export type NewTransaction = {
  id: string;
  externalId: string;
  accountId: string;
  amount: string;
  currency: CurrencyCode;
  posted: string;
  tags: Tag[];
  allocated: string;
  requestHash: string;
  allocations: { id: string; invoiceId: string; userId: string; type: AllocationRow['type']; amount: string }[];
};

/** What sync_transaction is given: the transaction without its account, which it resolves. */
export type TransactionToSync = Omit<NewTransaction, 'accountId' | 'allocations'>;
/** By id (must exist; must have the external id too, if given), or by external id (created on first use). */
export type AccountRef = { id: string; external_id?: string } | { external_id: string; new_id: string };
/** An allocation's user by id (must exist) or by external id (created on first use, as `new_user_id`). */
export type AllocationToSync = {
  id: string;
  position: number;
  invoice_id: string;
  user_id: string | null;
  user_external_id: string | null;
  new_user_id: string;
  type: AllocationRow['type'];
  amount: string;
};

export type SyncOutcome =
  | {
      outcome: 'created';
      posted: Date;
      created: Date;
      account: BillingExternalAccount;
      /** User reference (`id:<id>` or `ext:<external id>`) → [id, external id]. */
      users: Record<string, [string, string]>;
    }
  /** `taken`: the external id is held (replay or refusal); `follow`: a payment flow is on an invoice paid. */
  | { outcome: 'taken' | 'follow' | 'over_allocated' }
  | { outcome: 'unknown_account'; externalIdFound: string | undefined }
  | { outcome: 'unknown_invoice' | 'unknown_user'; indexes: number[] };

/** One sync as sync_transaction takes it. */
export type SyncCall = {
  workspaceId: string;
  transaction: TransactionToSync;
  account: AccountRef;
  allocations: readonly AllocationToSync[];
};

type SyncRow = {
  outcome: 'created' | 'taken' | 'follow';
  posted: Date | null;
  created: Date | null;
  account: [string, string] | null;
  users: Record<string, [string, string]> | null;
};

/** sync_transaction: the whole sync in one statement when no payment flow is involved (src/db/functions). */
export async function syncTransactionRow(db: Db, call: SyncCall): Promise<SyncOutcome> {
  try {
    const { transaction, account, allocations } = syncArguments(call);
    const [row] = await db<SyncRow[]>`
      /* syncTransactionRow */
      select outcome, tx_posted as posted, tx_created as created, account, users
      from sync_transaction(${call.workspaceId}, ${jsonb(db, transaction)}, ${jsonb(db, account)}, ${jsonb(db, allocations)})`;
    return syncAnswer(row);
  } catch (error) {
    const refused = syncRefusal(sqlRefusal(error));
    if (refused) return refused;
    throw error;
  }
}

/**
 * Several syncs in one statement and one commit (sync_transactions), each answered as alone;
 * WRITE_ALONE for a call that failed otherwise than by a refusal (a deadlock, say).
 */
export async function syncTransactionRows(
  db: Db,
  calls: readonly SyncCall[],
): Promise<(SyncOutcome | typeof WRITE_ALONE)[]> {
  const rows = await db<(SyncRow & GroupedCallError & { n: number })[]>`
    /* syncTransactionRows */
    select n, outcome, tx_posted as posted, tx_created as created, account, users, error_code, error_detail
    from sync_transactions(${jsonb(db, calls.map(syncArguments))})`;
  return oneRowPerCall(rows, calls.length).map((row) => groupedCallAnswer(row, syncAnswer, syncRefusal));
}

const syncArguments = ({ workspaceId, transaction, account, allocations }: SyncCall) => ({
  workspace_id: workspaceId,
  transaction: {
    id: transaction.id,
    external_id: transaction.externalId,
    amount: transaction.amount,
    currency: transaction.currency,
    posted: transaction.posted,
    tags: transaction.tags,
    allocated: transaction.allocated,
    request_hash: transaction.requestHash,
  },
  account,
  allocations,
});

function syncAnswer(row: SyncRow): SyncOutcome {
  if (row.outcome !== 'created') return { outcome: row.outcome };
  return {
    outcome: 'created',
    posted: row.posted!,
    created: row.created!,
    account: { id: row.account![0], externalId: row.account![1] },
    users: row.users!,
  };
}

function syncRefusal(refusal: SqlRefusal | undefined): SyncOutcome | undefined {
  switch (refusal?.name) {
    case 'external_id_taken':
      return { outcome: 'taken' };
    case 'over_allocated':
      return { outcome: 'over_allocated' };
    case 'unknown_account':
      return { outcome: 'unknown_account', externalIdFound: refusal.detail || undefined };
    case 'unknown_invoice':
    case 'unknown_user':
      return { outcome: refusal.name, indexes: JSON.parse(refusal.detail ?? '[]') as number[] };
    default:
      return undefined;
  }
}

/** Writes the transaction and its allocations; undefined when the external id was taken meanwhile. */
export async function insertTransaction(
  db: Db,
  workspaceId: string,
  transaction: NewTransaction,
): Promise<{ posted: Date; created: Date } | undefined> {
  const inserted = await db<{ posted: Date; created: Date }[]>`
    /* insertTransaction */
    insert into billing_transactions (workspace_id, id, external_id, account_id, amount, currency, posted, tags, allocated, request_hash)
    values (${workspaceId}, ${transaction.id}, ${transaction.externalId}, ${transaction.accountId}, ${transaction.amount}::numeric,
            ${transaction.currency}, ${transaction.posted}::timestamptz, ${jsonb(db, transaction.tags)}, ${transaction.allocated}::numeric,
            ${transaction.requestHash})
    on conflict (workspace_id, external_id) do nothing
    returning posted, created`;
  if (inserted.length === 0) return undefined;
  if (transaction.allocations.length > 0) {
    await db`
      /* insertAllocations */
      insert into allocations (workspace_id, id, transaction_id, position, invoice_id, user_id, type, amount)
      select ${workspaceId}, t.id, ${transaction.id}, t.position, t.invoice_id, t.user_id, t.type, t.amount
      from jsonb_to_recordset(${jsonb(
        db,
        transaction.allocations.map((allocation, index) => ({
          id: allocation.id,
          position: index + 1,
          invoice_id: allocation.invoiceId,
          user_id: allocation.userId,
          type: allocation.type,
          amount: allocation.amount,
        })),
      )}) as t(id text, position integer, invoice_id text, user_id text, type text, amount numeric)`;
  }
  return inserted[0];
}

export type TransactionFilter = { accountRef?: string; reconciliation?: 'reconciled' | 'unreconciled' };

/** Transactions by posted, then creation; an account named by id or external id. */
export async function listTransactionRows(
  db: Db,
  workspaceId: string,
  filter: TransactionFilter,
): Promise<TransactionRow[]> {
  return db<TransactionRow[]>`
    /* listTransactionRows */
    select ${transactionColumns(db)} from billing_transactions t
    join external_accounts a on a.workspace_id = t.workspace_id and a.id = t.account_id
    where t.workspace_id = ${workspaceId}
      ${filter.accountRef !== undefined ? db`and (a.id = ${filter.accountRef} or a.external_id = ${filter.accountRef})` : db``}
      ${filter.reconciliation === 'reconciled' ? db`and t.allocated = abs(t.amount)` : db``}
      ${filter.reconciliation === 'unreconciled' ? db`and t.allocated <> abs(t.amount)` : db``}
    order by t.posted, t.created, t.id`;
}

export async function allocationsOfTransactions(
  db: Db,
  workspaceId: string,
  transactionIds: readonly string[],
): Promise<AllocationRow[]> {
  if (transactionIds.length === 0) return [];
  return db<AllocationRow[]>`
    /* allocationsOfTransactions */
    select ${allocationColumns(db)} from allocations al
    join billing_transactions t on t.workspace_id = al.workspace_id and t.id = al.transaction_id
    join billing_users u on u.workspace_id = al.workspace_id and u.id = al.user_id
    where al.workspace_id = ${workspaceId} and al.transaction_id = any(${transactionIds as string[]}::text[])
    order by al.transaction_id, al.position`;
}

/** Allocations to any of the invoices, by the transaction's posted time, then creation. */
export async function allocationsOfInvoices(
  db: Db,
  workspaceId: string,
  invoiceIds: readonly string[],
): Promise<AllocationRow[]> {
  return db<AllocationRow[]>`
    /* allocationsOfInvoices */
    select ${allocationColumns(db)} from allocations al
    join billing_transactions t on t.workspace_id = al.workspace_id and t.id = al.transaction_id
    join billing_users u on u.workspace_id = al.workspace_id and u.id = al.user_id
    where al.workspace_id = ${workspaceId} and al.invoice_id = any(${invoiceIds as string[]}::text[])
    order by t.posted, t.created, t.id, al.position`;
}

export async function existingInvoiceIds(db: Db, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db<{ id: string }[]>`
    /* existingInvoiceIds */
    select id from invoices where workspace_id = ${workspaceId} and id = any(${[...new Set(ids)]}::text[])`;
  return new Set(rows.map((row) => row.id));
}
