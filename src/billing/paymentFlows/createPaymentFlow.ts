import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { sameFingerprint } from '../../core/idempotency.js';
import { planPayments } from '../../core/paymentPlans.js';
import { createOnce } from '../../db/createOnce.js';
import { findInvoice } from '../../db/invoices.js';
import {
  ensurePaymentAccounts,
  findPaymentFlow,
  insertPaymentFlow,
  insertPayments,
  settlementFacts,
  settlementInputs,
  type PaymentFlowRow,
} from '../../db/paymentFlows.js';
import type { Handler } from '../handlerTypes.js';
import { remainingOnInvoice, settle } from './settlement.js';

/**
 * Creates a settlement flow for an invoice and its plan from the invoice's remaining balances,
 * idempotent on `external_id` (checked before the invoice reference).
 */
export const createPaymentFlow: Handler<'createPaymentFlow'> = async ({ sql, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const requestHash = fingerprint(body);
  const invoiceId = 'id' in body.invoice ? body.invoice.id : body.invoice.external_id;
  const readFlow = async (flow: PaymentFlowRow) => {
    const { payments, facts } = await settlementInputs(sql, workspaceId, [flow]);
    return settle(flow, payments, facts).flow;
  };
  const result = await createOnce({
    key: { field: 'external_id', value: body.external_id, scope: 'in this workspace' },
    // By external id only: a flow whose id happens to equal it does not hold the key.
    find: async () => {
      const flow = await findPaymentFlow(sql, workspaceId, body.external_id);
      return flow?.externalId === body.external_id ? flow : undefined;
    },
    same: sameFingerprint(requestHash),
    create: (taken) =>
      sql.begin(async (trx) => {
        // Locked, so the plan reads balances no concurrent update or allocation is changing; the
        // facts go pipelined behind the lock on the transaction's one connection, so they are read
        // once it is held.
        const [invoice, facts] = await Promise.all([
          findInvoice(trx, workspaceId, invoiceId, { lock: true }),
          settlementFacts(trx, workspaceId, [invoiceId]),
        ]);
        if (!invoice) {
          const pointer = 'id' in body.invoice ? '/body/invoice/id' : '/body/invoice/external_id';
          throw new DomainError('unknown_invoice', `Invoice ${invoiceId} does not exist.`, {
            violations: [{ pointer, message: `invoice ${invoiceId} does not exist` }],
          });
        }
        const planned = planPayments(remainingOnInvoice(facts, invoiceId));
        // Pipelined too: a taken external id rolls the accounts back with the rest.
        const [inserted, accounts] = await Promise.all([
          insertPaymentFlow(trx, workspaceId, { externalId: body.external_id, invoiceId, requestHash }),
          ensurePaymentAccounts(
            trx,
            workspaceId,
            planned.map((payment) => ({ userId: payment.user, currency: payment.currency })),
          ),
        ]);
        const flow = inserted ?? taken();
        await insertPayments(
          trx,
          workspaceId,
          flow.id,
          flow.created,
          planned.map((payment) => ({
            batch: payment.batch,
            direction: payment.direction,
            userId: payment.user,
            currency: payment.currency,
            amount: payment.amount.toString(),
            paymentAccountId: accounts.get(`${payment.user}|${payment.currency}`)!,
          })),
        );
        return flow;
      }),
  });
  return { status: result.replayed ? (200 as const) : (201 as const), body: { data: await readFlow(result.row) } };
};
