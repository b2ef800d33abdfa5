import { DomainError } from '../../core/errors.js';
import { findPayment, flowsById, paymentsOfFlows, settlementFacts } from '../../db/paymentFlows.js';
import type { Handler } from '../handlerTypes.js';
import { settle } from '../paymentFlows/settlement.js';

/** One payment by id (payments made by flows have no external id), with its derived status. */
export const getPayment: Handler<'getPayment'> = async ({ sql, caller, path }) => {
  const workspaceId = caller.workspaceId;
  const payment = await findPayment(sql, workspaceId, path.payment_ref);
  if (!payment) throw new DomainError('payment_not_found', `Payment ${path.payment_ref} does not exist.`);
  const [flow] = await flowsById(sql, workspaceId, [payment.flowId]);
  const siblings = await paymentsOfFlows(sql, workspaceId, [flow.id]);
  const settled = settle(flow, siblings, await settlementFacts(sql, workspaceId, [flow.invoiceId]));
  return { status: 200, body: { data: settled.payments[siblings.findIndex((sibling) => sibling.id === payment.id)] } };
};
