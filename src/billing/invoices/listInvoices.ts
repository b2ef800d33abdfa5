import { lineItemsOf, listInvoiceRows, type LineItemRow } from '../../db/invoices.js';
import type { Handler } from '../handler.js';
import { presentInvoice } from './present.js';

/** Every invoice of the workspace with its line items, oldest first: two queries, whatever the count. */
export const listInvoices: Handler<'listInvoices'> = async ({ sql, caller }) => {
  const [rows, items] = await Promise.all([listInvoiceRows(sql, caller.workspaceId), lineItemsOf(sql, caller.workspaceId)]);
  const itemsOf = new Map<string, LineItemRow[]>();
  for (const item of items) {
    const list = itemsOf.get(item.invoiceId);
    if (list) list.push(item);
    else itemsOf.set(item.invoiceId, [item]);
  }
  return { status: 200, body: { data: rows.map((row) => presentInvoice(row, itemsOf.get(row.id) ?? [])) } };
};
