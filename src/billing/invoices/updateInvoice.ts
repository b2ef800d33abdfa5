import type { Handler } from '../handlerTypes.js';
import { changeInvoice } from './changeInvoice.js';

/** PATCH (current form): line item create, update and delete, and tag operations. */
export const updateInvoice: Handler<'updateInvoice'> = async ({ sql, caller, path, body }) => {
  const ops = body.line_items ?? {};
  const invoice = await changeInvoice(sql, caller.workspaceId, path.id, {
    basedOnVersion: body.current_invoice_version,
    updates: (ops.update ?? []).map((update, index) => ({
      id: update.id,
      pointer: `/body/line_items/update/${index}`,
      description: update.description,
      price: update.price,
      tags: update.tags,
    })),
    deletes: (ops.delete ?? []).map((removal, index) => ({
      id: removal.id,
      pointer: `/body/line_items/delete/${index}`,
    })),
    creates: (ops.create ?? []).map((item, index) => ({
      pointer: `/body/line_items/create/${index}`,
      description: item.description,
      productRef: item.product_id,
      type: item.type,
      user: 'id' in item.user ? { id: item.user.id } : { externalId: item.user.external_id },
      currency: item.currency_code ?? 'USD',
      price: item.price,
      deprecatedAmount: item.amount,
      tags: item.tags,
    })),
    tags: body.tags,
  });
  return { status: 200, body: { data: invoice } };
};
