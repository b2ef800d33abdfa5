import type { Handler } from '../handlerTypes.js';
import { changeInvoice, type InvoiceChange } from './changeInvoice.js';

/** The earlier POST update: an operation list; `update` sets a new amount at quantity 1. */
export const updateInvoiceLegacy: Handler<'updateInvoiceLegacy'> = async ({ sql, caller, path, body }) => {
  const change: InvoiceChange = { basedOnVersion: body.version, updates: [], deletes: [], creates: [] };
  body.line_items_update.forEach((op, index) => {
    const pointer = `/body/line_items_update/${index}`;
    if (op.op === 'add') {
      change.creates.push({
        pointer,
        description: op.description,
        productRef: op.product_id,
        type: op.type,
        user: { externalId: op.user_id },
        currency: op.currency_code,
        price: { amount: op.amount },
      });
    } else if (op.op === 'update') {
      change.updates.push({ id: op.id, pointer, price: { unit_price: op.amount, quantity: 1 } });
    } else {
      change.deletes.push({ id: op.id, pointer });
    }
  });
  const invoice = await changeInvoice(sql, caller.workspaceId, path.id, change);
  return { status: 200, body: { data: invoice } };
};
