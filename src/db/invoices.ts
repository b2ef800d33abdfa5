import type { components } from '../../generated/billing.js';
import type { Tag } from '../core/billingTags.js';
import { groupedCallAnswer, oneRowPerCall, sqlRefusal, type GroupedCallError, type SqlRefusal } from './errors.js';
import { WRITE_ALONE } from './groupCommit.js';
import { jsonb } from './json.js';
import type { Db, Sql } from './sql.js';

type CurrencyCode = components['schemas']['CurrencyCode'];
/** One line-item change of an invoice's cumulative diff, as the contract words it. */
export type InvoiceDiffEntry = components['schemas']['InvoiceDiffEntry'];

export type InvoiceRow = {
  workspaceId: string;
  id: string;
  version: number;
  tags: Tag[];
  requestHash: string;
  created: Date;
  modified: Date | null;
  diff: InvoiceDiffEntry[] | null;
};

export type LineItemRow = {
  invoiceId: string;
  id: string;
  position: number;
  type: 'payin' | 'payout';
  productId: string;
  productCode: string;
  userId: string;
  userExternalId: string;
  description: string;
  currency: CurrencyCode;
  /** numeric as exact text: money never becomes a JS number. */
  unitPrice: string;
  quantity: number;
  amount: string;
  tags: Tag[];
};

export type NewLineItem = Omit<LineItemRow, 'invoiceId' | 'productCode' | 'userExternalId'>;

const invoiceColumns = (db: Db) => db`
  workspace_id as "workspaceId", id, version, tags, request_hash as "requestHash", created, modified, diff`;

const lineItemColumns = (db: Db) => db`
  li.invoice_id as "invoiceId", li.id, li.position, li.type, li.product_id as "productId", p.code as "productCode",
  li.user_id as "userId", u.external_id as "userExternalId", li.description, li.currency,
  li.unit_price::text as "unitPrice", li.quantity, li.amount::text as amount, li.tags`;

export async function findInvoice(
  db: Db,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<InvoiceRow | undefined> {
  const [row] = await db<InvoiceRow[]>`
    /* findInvoice */
    select ${invoiceColumns(db)} from invoices where workspace_id = ${workspaceId} and id = ${id}
    ${options.lock ? db`for update` : db``}`;
  return row;
}

/**
 * An invoice and its line items (in the order they were added), in one round trip: both reads go
 * pipelined on one connection, the items after the row, so they are never older than the row's
 * version. (One statement building the items as JSON cost PostgreSQL 100 µs more than both.)
 */
export async function invoiceWithItems(
  sql: Sql,
  workspaceId: string,
  id: string,
): Promise<{ row: InvoiceRow; items: LineItemRow[] } | undefined> {
  const connection = await sql.reserve();
  try {
    const [row, items] = await Promise.all([
      findInvoice(connection, workspaceId, id),
      lineItemsOf(connection, workspaceId, id),
    ]);
    return row && { row, items };
  } finally {
    connection.release();
  }
}

export async function listInvoiceRows(db: Db, workspaceId: string): Promise<InvoiceRow[]> {
  return db<InvoiceRow[]>`
    /* listInvoiceRows */
    select ${invoiceColumns(db)} from invoices where workspace_id = ${workspaceId} order by created, id`;
}

/**
 * Line items of the given invoice (all of the workspace's when omitted), in the order they were
 * added. One id, not an array: PostgreSQL planned `= any($array)` anew on every call (0.2 ms,
 * four times its execution), judging the generic plan costlier than one for the array given.
 */
export async function lineItemsOf(db: Db, workspaceId: string, invoiceId?: string): Promise<LineItemRow[]> {
  return db<LineItemRow[]>`
    /* lineItemsOf */
    select ${lineItemColumns(db)}
    from invoice_line_items li
    join products p on p.workspace_id = li.workspace_id and p.id = li.product_id
    join billing_users u on u.workspace_id = li.workspace_id and u.id = li.user_id
    where li.workspace_id = ${workspaceId}
      ${invoiceId !== undefined ? db`and li.invoice_id = ${invoiceId}` : db``}
    order by li.invoice_id, li.position`;
}

export type InvoiceChangeWrite = {
  workspaceId: string;
  invoiceId: string;
  /** The version the change was computed from: the invoice moves on only from it. */
  basedOnVersion: number;
  tags: Tag[];
  diff: InvoiceDiffEntry[] | null;
  /** The version left behind, for the history: the invoice as it was, and its diff. */
  snapshot: components['schemas']['Invoice'];
  previousDiff: InvoiceDiffEntry[] | null;
  updates: readonly LineItemRow[];
  deletes: readonly string[];
  creates: readonly NewLineItem[];
};

/**
 * Writes an invoice change in one statement (functions/invoices.sql): the next version, the
 * history, the line items. A change committed since `basedOnVersion` raises version_conflict.
 */
export async function writeInvoiceChange(db: Db, change: InvoiceChangeWrite): Promise<InvoiceRow> {
  const { workspaceId, invoiceId } = change;
  const [row] = await db<InvoiceRow[]>`
    /* writeInvoiceChange */
    select ${invoiceColumns(db)} from change_invoice(
      ${workspaceId}, ${invoiceId}, ${change.basedOnVersion}, ${jsonb(db, change.tags)},
      ${change.diff === null ? null : jsonb(db, change.diff)}, ${jsonb(db, change.snapshot)},
      ${change.previousDiff === null ? null : jsonb(db, change.previousDiff)},
      ${jsonb(
        db,
        change.updates.map((item) => ({
          id: item.id,
          description: item.description,
          unit_price: item.unitPrice,
          quantity: item.quantity,
          amount: item.amount,
          tags: item.tags,
        })),
      )},
      ${change.deletes as string[]}::text[],
      ${jsonb(
        db,
        change.creates.map((item) => ({
          id: item.id,
          position: item.position,
          type: item.type,
          product_id: item.productId,
          user_id: item.userId,
          description: item.description,
          currency: item.currency,
          unit_price: item.unitPrice,
          quantity: item.quantity,
          amount: item.amount,
          tags: item.tags,
        })),
      )})`;
  return row;
}

/** A version left behind: the invoice as it was (snapshot) and the diff up to it. */
export type InvoiceVersionRow = {
  version: number;
  snapshot: components['schemas']['Invoice'];
  diff: InvoiceDiffEntry[] | null;
};

export async function invoiceVersions(db: Db, workspaceId: string, invoiceId: string): Promise<InvoiceVersionRow[]> {
  return db<InvoiceVersionRow[]>`
    /* invoiceVersions */
    select version, snapshot, diff from invoice_versions
    where workspace_id = ${workspaceId} and invoice_id = ${invoiceId} order by version`;
}

export type InvoicePaymentRow = {
  allocationId: string;
  amount: string;
  currency: CurrencyCode;
  posted: Date;
  type: 'invoice_payin' | 'invoice_payout';
  transactionId: string;
  transactionExternalId: string;
  transactionTags: Tag[];
  userId: string;
  userExternalId: string;
};

/** Allocations applied to the invoice, oldest posted first. */
export async function invoicePayments(db: Db, workspaceId: string, invoiceId: string): Promise<InvoicePaymentRow[]> {
  return db<InvoicePaymentRow[]>`
    /* invoicePayments */
    select a.id as "allocationId", a.amount::text as amount, t.currency, t.posted, a.type,
           t.id as "transactionId", t.external_id as "transactionExternalId", t.tags as "transactionTags",
           u.id as "userId", u.external_id as "userExternalId"
    from allocations a
    join billing_transactions t on t.workspace_id = a.workspace_id and t.id = a.transaction_id
    join billing_users u on u.workspace_id = a.workspace_id and u.id = a.user_id
    where a.workspace_id = ${workspaceId} and a.invoice_id = ${invoiceId}
    order by t.posted, t.created, a.position`;
}

export type InvoiceItemInput = {
  id: string;
  position: number;
  type: LineItemRow['type'];
  product_ref: string;
  user_id: string | null;
  user_external_id: string | null;
  /** Set on the first item naming each new external id only. */
  new_user_id: string | null;
  description: string;
  currency: CurrencyCode;
  unit_price: string;
  quantity: number;
  amount: string;
  tags: Tag[];
};

/** What a create wrote for each line item, in item order: its user and its product. */
export type CreatedItemReferences = {
  userIds: string[];
  userExternalIds: string[];
  productIds: string[];
  productCodes: string[];
};

export type CreateInvoiceOutcome =
  | ({ outcome: 'created'; created: Date } & CreatedItemReferences)
  | { outcome: 'taken' }
  | { outcome: 'unknown_product' | 'unknown_user'; indexes: number[] };

/** One invoice create as create_invoice takes it. */
export type InvoiceCreateCall = {
  workspaceId: string;
  invoiceId: string;
  tags: Tag[];
  requestHash: string;
  items: readonly InvoiceItemInput[];
};

type CreateInvoiceRow = { outcome: 'created' | 'taken'; created: Date | null } & CreatedItemReferences;

/** What create_invoice and create_invoices answer for a call, as CreateInvoiceRow. */
const createdColumns = (db: Db) => db`
  outcome, invoice_created as created, user_ids as "userIds", user_external_ids as "userExternalIds",
  product_ids as "productIds", product_codes as "productCodes"`;

/** create_invoice: the whole create in one statement (src/db/functions). */
export async function createInvoiceRow(db: Db, call: InvoiceCreateCall): Promise<CreateInvoiceOutcome> {
  try {
    const [row] = await db<CreateInvoiceRow[]>`
      /* createInvoiceRow */
      select ${createdColumns(db)}
      from create_invoice(${call.workspaceId}, ${call.invoiceId}, ${jsonb(db, call.tags)}, ${call.requestHash}, ${jsonb(db, call.items)})`;
    return createAnswer(row);
  } catch (error) {
    const refused = createRefusal(sqlRefusal(error));
    if (refused) return refused;
    throw error;
  }
}

/**
 * Several creates in one statement and one commit (create_invoices), each answered as alone;
 * WRITE_ALONE for a call that failed otherwise than by a refusal (a deadlock, say).
 */
export async function createInvoiceRows(
  db: Db,
  calls: readonly InvoiceCreateCall[],
): Promise<(CreateInvoiceOutcome | typeof WRITE_ALONE)[]> {
  const rows = await db<(CreateInvoiceRow & GroupedCallError & { n: number })[]>`
    /* createInvoiceRows */
    select n, ${createdColumns(db)}, error_code, error_detail
    from create_invoices(${jsonb(
      db,
      calls.map((call) => ({
        workspace_id: call.workspaceId,
        invoice_id: call.invoiceId,
        tags: call.tags,
        request_hash: call.requestHash,
        items: call.items,
      })),
    )})`;
  return oneRowPerCall(rows, calls.length).map((row) => groupedCallAnswer(row, createAnswer, createRefusal));
}

function createAnswer(row: CreateInvoiceRow): CreateInvoiceOutcome {
  if (row.outcome === 'taken') return { outcome: 'taken' };
  // Only the call's own answer: a grouped row also carries its ordinal and error columns.
  const { userIds, userExternalIds, productIds, productCodes } = row;
  return { outcome: 'created', created: row.created!, userIds, userExternalIds, productIds, productCodes };
}

function createRefusal(refusal: SqlRefusal | undefined): CreateInvoiceOutcome | undefined {
  if (refusal?.name === 'unknown_product' || refusal?.name === 'unknown_user') {
    return { outcome: refusal.name, indexes: JSON.parse(refusal.detail ?? '[]') as number[] };
  }
  return undefined;
}
