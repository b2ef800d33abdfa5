import { invoiceVersions, type InvoiceDiffEntry } from '../../db/invoices.js';
import type { Handler } from '../handlerTypes.js';
import { currentInvoice } from './currentInvoice.js';
import type { Invoice } from './present.js';

/**
 * One snapshot per version, oldest first: the versions updates left behind, then the invoice as
 * it is now; from version 2 on each carries the cumulative line-item diff.
 */
export const listInvoiceHistory: Handler<'listInvoiceHistory'> = async ({ sql, caller, path }) => {
  const { row, invoice } = await currentInvoice(sql, caller.workspaceId, path.id);
  const earlier = await invoiceVersions(sql, caller.workspaceId, path.id);
  const withDiff = (snapshot: Invoice, diff: InvoiceDiffEntry[] | null) => ({ ...snapshot, ...(diff ? { diff } : {}) });
  return {
    status: 200,
    body: {
      data: [...earlier.map((version) => withDiff(version.snapshot, version.diff)), withDiff(invoice, row.diff)],
    },
  };
};
