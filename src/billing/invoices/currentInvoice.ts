import { DomainError } from '../../core/errors.js';
import { invoiceWithItems, type InvoiceRow, type LineItemRow } from '../../db/invoices.js';
import type { Sql } from '../../db/sql.js';
import { presentInvoice, type Invoice } from './present.js';

export type CurrentInvoice = { row: InvoiceRow; items: LineItemRow[]; invoice: Invoice };

/** The invoice as it is now (its row and line items from one snapshot), or `invoice_not_found`. */
export async function currentInvoice(sql: Sql, workspaceId: string, id: string): Promise<CurrentInvoice> {
  const found = await invoiceWithItems(sql, workspaceId, id);
  if (!found) throw new DomainError('invoice_not_found', `Invoice ${id} does not exist.`);
  return { ...found, invoice: presentInvoice(found.row, found.items) };
}
