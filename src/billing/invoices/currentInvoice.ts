import { DomainError } from '../../core/errors.js';
import { findInvoice, lineItemsOf, type InvoiceRow, type LineItemRow } from '../../db/invoices.js';
import type { Db } from '../../db/sql.js';
import { presentInvoice, type Invoice } from './present.js';

export type CurrentInvoice = { row: InvoiceRow; items: LineItemRow[]; invoice: Invoice };

/** The invoice as it is now (locked for update when asked), or `invoice_not_found`. */
export async function currentInvoice(
  db: Db,
  workspaceId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<CurrentInvoice> {
  const row = await findInvoice(db, workspaceId, id, options);
  if (!row) throw new DomainError('invoice_not_found', `Invoice ${id} does not exist.`);
  const items = await lineItemsOf(db, workspaceId, id);
  return { row, items, invoice: presentInvoice(row, items) };
}
