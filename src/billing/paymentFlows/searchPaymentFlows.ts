import { groupBy } from '../../core/grouping.js';
import { pagePaymentFlows, settlementInputs } from '../../db/paymentFlows.js';
import type { Handler } from '../handlerTypes.js';
import { pageOf, searchPageRequest } from '../pages.js';
import { settle } from './settlement.js';

const SEARCH = 'payment-flows';

/** Flows oldest first, optionally of one invoice, a page at a time. */
export const searchPaymentFlows: Handler<'searchPaymentFlows'> = async ({ sql, caller, body, cursors }) => {
  const workspaceId = caller.workspaceId;
  const request = searchPageRequest(cursors, SEARCH, workspaceId, body?.page_info);
  const { rows, pageInfo } = pageOf(
    cursors,
    SEARCH,
    workspaceId,
    await pagePaymentFlows(sql, workspaceId, { invoiceId: body?.invoice_id, ...request }),
    request.limit,
  );
  const { payments, facts } = await settlementInputs(sql, workspaceId, rows);
  const byFlow = groupBy(payments, (payment) => payment.flowId);
  return {
    status: 200,
    body: { data: rows.map((row) => settle(row, byFlow.get(row.id) ?? [], facts).flow), page_info: pageInfo },
  };
};
