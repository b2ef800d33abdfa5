import { groupBy } from '../../core/grouping.js';
import { lineItemsOf, listInvoiceRows } from '../../db/invoices.js';
import type { Handler } from '../handlerTypes.js';
import { presentInvoice } from './present.js';

/** Every invoice of the workspace with its line items, oldest first: two queries, whatever the count. */
export const listInvoices: Handler<'listInvoices'> = async ({ sql, caller }) => {
  const [rows, items] = await Promise.all([
    listInvoiceRows(sql, caller.workspaceId),
    lineItemsOf(sql, caller.workspaceId),
  ]);
  const itemsOf = groupBy(items, (item) => item.invoiceId);
  return { status: 200, body: { data: rows.map((row) => presentInvoice(row, itemsOf.get(row.id) ?? [])) } };
};
