import { groupBy } from '../../core/grouping.js';
import { flowsById, pagePayments, settlementInputs } from '../../db/paymentFlows.js';
import type { Handler } from '../handlerTypes.js';
import { pageOf, searchPageRequest } from '../pages.js';
import { settle, type Payment } from '../paymentFlows/settlement.js';

const SEARCH = 'payments';

/** Payments oldest first, optionally of one flow, a page at a time; statuses derived per flow. */
export const searchPayments: Handler<'searchPayments'> = async ({ sql, caller, body, cursors }) => {
  const workspaceId = caller.workspaceId;
  const request = searchPageRequest(cursors, SEARCH, workspaceId, body?.page_info);
  const { rows, pageInfo } = pageOf(
    cursors,
    SEARCH,
    workspaceId,
    await pagePayments(sql, workspaceId, { flowId: body?.payment_flow_id, ...request }),
    request.limit,
  );
  const flows = await flowsById(sql, workspaceId, [...new Set(rows.map((row) => row.flowId))]);
  const { payments: siblings, facts } = await settlementInputs(sql, workspaceId, flows);
  const siblingsOf = groupBy(siblings, (sibling) => sibling.flowId);
  const settledById = new Map<string, Payment>();
  for (const flow of flows) {
    for (const payment of settle(flow, siblingsOf.get(flow.id) ?? [], facts).payments)
      settledById.set(payment.id, payment);
  }
  return { status: 200, body: { data: rows.map((row) => settledById.get(row.id)!), page_info: pageInfo } };
};
