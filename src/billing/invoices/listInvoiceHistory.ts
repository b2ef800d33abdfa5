import { DomainError } from '../../core/errors.js';
import { findInvoice, invoiceVersions } from '../../db/invoices.js';
import type { Handler } from '../handler.js';

/** One snapshot per version, oldest first; from version 2 on with the cumulative line-item diff. */
export const listInvoiceHistory: Handler<'listInvoiceHistory'> = async ({ sql, caller, path }) => {
  if (!await findInvoice(sql, caller.workspaceId, path.id)) throw new DomainError('invoice_not_found', `Invoice ${path.id} does not exist.`);
  const versions = await invoiceVersions(sql, caller.workspaceId, path.id);
  return { status: 200, body: { data: versions.map((version) => ({ ...version.snapshot, ...(version.diff ? { diff: version.diff } : {}) })) as never } };
};
