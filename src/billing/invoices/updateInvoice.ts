import type { Handler } from '../handlerTypes.js';
import { changeInvoice } from './changeInvoice.js';
import { lineItemSpec } from './newLineItems.js';

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
    creates: (ops.create ?? []).map((item, index) => lineItemSpec(item, `/body/line_items/create/${index}`)),
    tags: body.tags,
  });
  return { status: 200, body: { data: invoice } };
};
