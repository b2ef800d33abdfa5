import type { components } from '../../../generated/billing.js';
import type { InvoiceRow, LineItemRow } from '../../db/invoices.js';

export type Invoice = components['schemas']['Invoice'];
export type LineItem = components['schemas']['LineItem'];

/** A line item with the current keys and, for older SDKs, `amount` and `currencyCode`. */
export function presentLineItem(row: LineItemRow): LineItem {
  return {
    id: row.id,
    amount: row.amount,
    currency_code: row.currency,
    currencyCode: row.currency,
    description: row.description,
    price: { amount: row.amount, quantity: row.quantity, unit_price: row.unitPrice },
    product_id: row.productCode,
    tags: row.tags,
    type: row.type,
    user_id: row.userExternalId,
  };
}

/** An invoice in both key styles; `modified` only once it was updated. */
export function presentInvoice(row: InvoiceRow, items: readonly LineItemRow[]): Invoice {
  const lineItems = items.map(presentLineItem);
  return {
    id: row.id,
    created: row.created.toISOString(),
    status: 'active',
    tags: row.tags,
    version: row.version,
    workspace_id: row.workspaceId,
    workspaceId: row.workspaceId,
    line_items: lineItems,
    lineItems,
    ...(row.modified ? { modified: row.modified.toISOString() } : {}),
  };
}
