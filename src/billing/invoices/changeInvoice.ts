import { applyTagOps, type Tag, type TagOps } from '../../core/billingTags.js';
import { DomainError, type Violation } from '../../core/errors.js';
import { resolvePriceUpdate } from '../../core/prices.js';
import {
  bumpInvoice,
  deleteLineItems,
  insertInvoiceVersion,
  insertLineItems,
  updateLineItems,
  type InvoiceDiffEntry,
  type LineItemRow,
} from '../../db/invoices.js';
import type { Sql } from '../../db/sql.js';
import { followInvoice } from '../paymentFlows/replan.js';
import { currentInvoice } from './currentInvoice.js';
import { newLineItems, type NewLineItemSpec } from './newLineItems.js';
import { presentInvoice, presentLineItem, type Invoice } from './present.js';

// One invoice update, whichever form asked for it: the version checked under a row lock, then
// the line items named checked, then new line items and prices, then every write, a new
// version, its history snapshot and the new plans of the invoice's payment flows, all in one
// transaction. Changes apply as update, delete, create, and the history diff lists them so.

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
  return sql.begin(async (trx) => {
    const { row, items, invoice: before } = await currentInvoice(trx, workspaceId, invoiceId, { lock: true });
    if (row.version !== change.basedOnVersion) {
      throw new DomainError(
        'version_conflict',
        `Invoice ${invoiceId} is at version ${row.version}, not ${change.basedOnVersion}.`,
        { current_version: row.version },
      );
    }
    const byId = new Map(items.map((item) => [item.id, item]));
    checkNamedLineItems(invoiceId, byId, [...change.updates, ...change.deletes]);
    const nextTags: Tag[] = change.tags ? applyTagOps(row.tags, change.tags, '/body/tags') : row.tags;
    const lastPosition = items.reduce((max, item) => Math.max(max, item.position), 0);
    const created = await newLineItems(trx, workspaceId, invoiceId, change.creates, lastPosition + 1);

    const updated = change.updates.map((update) => {
      const item = byId.get(update.id)!;
      const price = update.price && resolvePriceUpdate(update.price, update.pointer);
      return {
        ...item,
        description: update.description ?? item.description,
        tags: update.tags ? applyTagOps(item.tags, update.tags, `${update.pointer}/tags`) : item.tags,
        ...(price
          ? { unitPrice: price.unitPrice.toString(), quantity: price.quantity, amount: price.amount.toString() }
          : {}),
      };
    });
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
    // The version being left behind goes to the history; the invoice itself is the current one.
    // Independent writes, pipelined on the transaction's connection.
    const written = await Promise.all([
      insertInvoiceVersion(trx, workspaceId, invoiceId, row.version, before, row.diff),
      updateLineItems(trx, workspaceId, updated),
      deleteLineItems(
        trx,
        workspaceId,
        deleted.map((item) => item.id),
      ),
      insertLineItems(trx, workspaceId, invoiceId, created),
      bumpInvoice(trx, workspaceId, invoiceId, nextTags, diff),
    ]);
    const bumped = written[4];
    const updatedById = new Map(updated.map((item) => [item.id, item]));
    const gone = new Set(deleted.map((item) => item.id));
    const nextItems = [
      ...items.filter((item) => !gone.has(item.id)).map((item) => updatedById.get(item.id) ?? item),
      ...created,
    ];
    const invoice = presentInvoice(bumped, nextItems);
    // New amounts owed: the invoice's payment flows get a new plan version.
    if (updated.length + deleted.length + created.length > 0)
      await followInvoice(trx, workspaceId, invoiceId, bumped.modified!, true);
    return invoice;
  });
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
