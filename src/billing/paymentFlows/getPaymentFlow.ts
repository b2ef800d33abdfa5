import { DomainError } from '../../core/errors.js';
import { findPaymentFlow, settlementInputs } from '../../db/paymentFlows.js';
import type { Handler } from '../handlerTypes.js';
import { settle } from './settlement.js';

/** One flow by id or external id, with its plan's statuses as they are now. */
export const getPaymentFlow: Handler<'getPaymentFlow'> = async ({ sql, caller, path }) => {
  const flow = await findPaymentFlow(sql, caller.workspaceId, path.payment_flow_ref);
  if (!flow) throw new DomainError('payment_flow_not_found', `Payment flow ${path.payment_flow_ref} does not exist.`);
  const { payments, facts } = await settlementInputs(sql, caller.workspaceId, [flow]);
  return { status: 200, body: { data: settle(flow, payments, facts).flow } };
};
