import { applyTagOps, type Tag, type TagOps } from '../../core/billingTags.js';
import { DomainError, type Violation } from '../../core/errors.js';
import { resolvePriceUpdate } from '../../core/prices.js';
import { sqlRefusal } from '../../db/errors.js';
import { writeInvoiceChange, type InvoiceDiffEntry, type InvoiceRow, type LineItemRow } from '../../db/invoices.js';
import type { Db, Sql } from '../../db/sql.js';
import { followInvoice } from '../paymentFlows/replan.js';
import { currentInvoice, type CurrentInvoice } from './currentInvoice.js';
import { newLineItems, type NewLineItemSpec } from './newLineItems.js';
import { presentInvoice, presentLineItem, type Invoice } from './present.js';

// One invoice update, whichever form asked for it: the invoice is read without a lock, the
// change is checked and computed from that version, then written in one statement that moves
// the invoice on only from that version (a change committed in between is a version conflict,
// as it would be had it come first under a lock). Line-item changes also create the users of
// new items and re-plan the invoice's payment flows, in the transaction of that statement.
// Changes apply as update, delete, create, and the history diff lists them so.

export type LineItemChange = {
  id: string;
  pointer: string;
  description?: string;
  price?: { amount?: string; unit_price: string; quantity: number };
  tags?: TagOps;
};

export type InvoiceChange = {
  basedOnVersion: number;
  updates: LineItemChange[];
  deletes: { id: string; pointer: string }[];
  creates: NewLineItemSpec[];
  tags?: TagOps;
};

export async function changeInvoice(
  sql: Sql,
  workspaceId: string,
  invoiceId: string,
  change: InvoiceChange,
): Promise<Invoice> {
  const current = await currentInvoice(sql, workspaceId, invoiceId);
  const { row, items } = current;
  if (row.version !== change.basedOnVersion) throw versionConflict(invoiceId, row.version, change.basedOnVersion);
  const byId = new Map(items.map((item) => [item.id, item]));
  checkNamedLineItems(invoiceId, byId, [...change.updates, ...change.deletes]);
  const tags: Tag[] = change.tags ? applyTagOps(row.tags, change.tags, '/body/tags') : row.tags;
  if (change.updates.length + change.deletes.length + change.creates.length === 0) {
    const bumped = await writeChange(sql, current, {
      tags,
      diff: [...(row.diff ?? [])],
      updated: [],
      deleted: [],
      created: [],
    });
    return presentInvoice(bumped, items);
  }
  return sql.begin(async (trx) => {
    const lastPosition = items.reduce((max, item) => Math.max(max, item.position), 0);
    const created = await newLineItems(trx, workspaceId, invoiceId, change.creates, lastPosition + 1);
    const updated = change.updates.map((update) => updatedLineItem(byId.get(update.id)!, update));
    const deleted = change.deletes.map((removal) => byId.get(removal.id)!);
    const diff: InvoiceDiffEntry[] = [
      ...(row.diff ?? []),
      ...updated.map((item) => ({
        op: 'update' as const,
        id: item.id,
        old_amount: byId.get(item.id)!.amount,
        new_amount: item.amount,
      })),
      ...deleted.map((item) => ({ op: 'delete' as const, item: presentLineItem(item) })),
      ...created.map((item) => ({ op: 'add' as const, item: presentLineItem(item) })),
    ];
    const bumped = await writeChange(trx, current, { tags, diff, updated, deleted, created });
    const updatedById = new Map(updated.map((item) => [item.id, item]));
    const gone = new Set(deleted.map((item) => item.id));
    const nextItems = [
      ...items.filter((item) => !gone.has(item.id)).map((item) => updatedById.get(item.id) ?? item),
      ...created,
    ];
    // New amounts owed: the invoice's payment flows get a new plan version.
    await followInvoice(trx, workspaceId, invoiceId, bumped.modified!, true);
    return presentInvoice(bumped, nextItems);
  });
}

function versionConflict(invoiceId: string, version: number, basedOnVersion: number): DomainError {
  return new DomainError('version_conflict', `Invoice ${invoiceId} is at version ${version}, not ${basedOnVersion}.`, {
    current_version: version,
  });
}

function updatedLineItem(item: LineItemRow, update: LineItemChange): LineItemRow {
  const price = update.price && resolvePriceUpdate(update.price, update.pointer);
  return {
    ...item,
    description: update.description ?? item.description,
    tags: update.tags ? applyTagOps(item.tags, update.tags, `${update.pointer}/tags`) : item.tags,
    ...(price
      ? { unitPrice: price.unitPrice.toString(), quantity: price.quantity, amount: price.amount.toString() }
      : {}),
  };
}

type ComputedChange = {
  tags: Tag[];
  diff: InvoiceDiffEntry[];
  updated: readonly LineItemRow[];
  deleted: readonly LineItemRow[];
  created: readonly LineItemRow[];
};

/** The version left behind goes to the history; the invoice moves on, only from the version read. */
async function writeChange(db: Db, current: CurrentInvoice, change: ComputedChange): Promise<InvoiceRow> {
  const { row } = current;
  try {
    return await writeInvoiceChange(db, {
      workspaceId: row.workspaceId,
      invoiceId: row.id,
      basedOnVersion: row.version,
      tags: change.tags,
      diff: change.diff,
      snapshot: current.invoice,
      previousDiff: row.diff,
      updates: change.updated,
      deletes: change.deleted.map((item) => item.id),
      creates: change.created,
    });
  } catch (error) {
    const refusal = sqlRefusal(error);
    if (refusal?.name !== 'version_conflict') throw error;
    // Changed (or gone) since it was read: the answer it would have had after that change.
    if (!refusal.detail) throw new DomainError('invoice_not_found', `Invoice ${row.id} does not exist.`);
    throw versionConflict(row.id, Number(refusal.detail), row.version);
  }
}

/** Line items named by updates and deletes must be this invoice's, each named once. */
function checkNamedLineItems(
  invoiceId: string,
  byId: Map<string, LineItemRow>,
  named: readonly { id: string; pointer: string }[],
): void {
  const missing: Violation[] = named
    .filter((ref) => !byId.has(ref.id))
    .map((ref) => ({ pointer: `${ref.pointer}/id`, message: `line item ${ref.id} is not on invoice ${invoiceId}` }));
  if (missing.length > 0) {
    throw new DomainError(
      'unknown_line_item',
      `Line item ${named.find((ref) => !byId.has(ref.id))!.id} is not on invoice ${invoiceId}.`,
      { violations: missing },
    );
  }
  const seen = new Set<string>();
  const repeated: Violation[] = [];
  for (const ref of named) {
    if (seen.has(ref.id))
      repeated.push({
        pointer: `${ref.pointer}/id`,
        message: `line item ${ref.id} is named by another change of this request`,
      });
    seen.add(ref.id);
  }
  if (repeated.length > 0)
    throw new DomainError('invalid_request', 'The request does not match the contract.', { violations: repeated });
}
