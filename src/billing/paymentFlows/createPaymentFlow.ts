import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { planPayments } from '../../core/paymentPlans.js';
import { findInvoice } from '../../db/invoices.js';
import {
  ensurePaymentAccounts, findFlowByRef, insertFlow, insertPayments, paymentsOfFlows, settlementFacts, type PaymentFlowRow,
} from '../../db/paymentFlows.js';
import type { Handler } from '../handler.js';
import { remainingOnInvoice, settle } from './settlement.js';

class TakenMeanwhile extends Error {}

/**
 * Creates a settlement flow for an invoice and its plan from the invoice's remaining balances,
 * idempotent on `external_id` (checked before the invoice reference).
 */
export const createPaymentFlow: Handler<'createPaymentFlow'> = async ({ sql, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const requestHash = fingerprint(body);
  const invoiceId = 'id' in body.invoice ? body.invoice.id : body.invoice.external_id;
  const replay = async () => {
    const stored = (await findFlowByRef(sql, workspaceId, body.external_id))!;
    if (stored.externalId !== body.external_id || stored.requestHash !== requestHash) {
      throw new DomainError('idempotency_key_reused', 'This idempotency key was already used with a different request body.');
    }
    return { status: 200 as const, body: { data: await readFlow(stored) } };
  };
  const readFlow = async (flow: PaymentFlowRow) =>
    settle(flow, await paymentsOfFlows(sql, workspaceId, [flow.id]), await settlementFacts(sql, workspaceId, [flow.invoiceId])).flow;
  const existing = await findFlowByRef(sql, workspaceId, body.external_id);
  if (existing && existing.externalId === body.external_id) return replay();

  try {
    const created = await sql.begin(async (tx) => {
      // Locked, so the plan reads balances no concurrent update or allocation is changing.
      if (!await findInvoice(tx, workspaceId, invoiceId, { lock: true })) {
        const pointer = 'id' in body.invoice ? '/body/invoice/id' : '/body/invoice/external_id';
        throw new DomainError('unknown_invoice', `Invoice ${invoiceId} does not exist.`, { violations: [{ pointer, message: `invoice ${invoiceId} does not exist` }] });
      }
      const flow = await insertFlow(tx, workspaceId, { externalId: body.external_id, invoiceId, requestHash });
      if (!flow) throw new TakenMeanwhile();
      const planned = planPayments(remainingOnInvoice(await settlementFacts(tx, workspaceId, [invoiceId]), invoiceId));
      const accounts = await ensurePaymentAccounts(tx, workspaceId, planned.map((payment) => ({ userId: payment.user, currency: payment.currency })));
      await insertPayments(tx, workspaceId, flow.id, flow.created, planned.map((payment) => ({
        batch: payment.batch, direction: payment.direction, userId: payment.user, currency: payment.currency,
        amount: payment.amount.toString(), paymentAccountId: accounts.get(`${payment.user}|${payment.currency}`)!,
      })));
      return flow;
    });
    return { status: 201, body: { data: await readFlow(created) } };
  } catch (error) {
    if (error instanceof TakenMeanwhile) return replay();
    throw error;
  }
};
