import { allocationsOfInvoices } from '../../db/transactions.js';
import type { Handler } from '../handlerTypes.js';

/** Allocations to any of the invoices given; not paginated, so `page_info` never has a cursor. */
export const searchAllocations: Handler<'searchAllocations'> = async ({ sql, caller, body }) => {
  const rows = await allocationsOfInvoices(sql, caller.workspaceId, body.filter.invoice_id.any);
  return {
    status: 200,
    body: {
      data: rows.map((row) => ({
        id: row.id,
        amount: row.amount,
        invoice_id: row.invoiceId,
        posted: row.posted.toISOString(),
        transaction: { id: row.transactionId, external_id: row.transactionExternalId },
        type: row.type,
        user: { id: row.userId, external_id: row.userExternalId },
      })),
      page_info: {},
    },
  };
};
