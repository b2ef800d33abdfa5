import type { components } from '../../../generated/billing.js';
import { deriveStatuses, type Direction, type Remaining } from '../../core/paymentPlans.js';
import type { PaymentFlowRow, PaymentRow, SettlementFacts } from '../../db/paymentFlows.js';

// Flows and payments as clients read them: the stored plan and completions (kept in step with
// the invoice by replan.ts), batch and flow statuses derived from them (core/paymentPlans.ts),
// and the transactions that paid each payment.

export type PaymentFlow = components['schemas']['PaymentFlow'];
export type Payment = components['schemas']['Payment'];
type Currency = components['schemas']['CurrencyCode'];

const directionOf = (type: string): Direction =>
  type === 'payin' || type === 'invoice_payin' ? 'inbound' : 'outbound';
const keyOf = (userId: string, currency: string, direction: Direction) => `${userId}|${currency}|${direction}`;

/** What each user still owes (inbound) or is owed (outbound) on the invoice, per currency. */
export function remainingOnInvoice(facts: SettlementFacts, invoiceId: string): Remaining<Currency>[] {
  const sums = new Map<string, Remaining<Currency>>();
  const add = (userId: string, externalId: string, currency: Currency, direction: Direction, amount: bigint) => {
    const key = keyOf(userId, currency, direction);
    const entry = sums.get(key) ?? { user: userId, sortKey: externalId, currency, direction, amount: 0n };
    entry.amount += amount;
    sums.set(key, entry);
  };
  for (const item of facts.lineItems) {
    if (item.invoiceId === invoiceId)
      add(item.userId, item.userExternalId, item.currency, directionOf(item.type), BigInt(item.amount));
  }
  for (const allocation of facts.allocations) {
    if (allocation.invoiceId === invoiceId)
      add(
        allocation.userId,
        allocation.userExternalId,
        allocation.currency,
        directionOf(allocation.type),
        -BigInt(allocation.amount),
      );
  }
  return [...sums.values()];
}

type PaymentView = { payment: Payment; planEntry: components['schemas']['PlanPayment'] };

/** Every payment of the flow with its status (completion is stored; the rest derived), and the flow around them. */
export function settle(
  flow: PaymentFlowRow,
  payments: readonly PaymentRow[],
  facts: SettlementFacts,
): { flow: PaymentFlow; payments: Payment[] } {
  // The transactions that paid a payment: allocations to its user, currency and direction
  // recorded after the payment was planned (and, once it completed, not after that).
  const paidBy = (payment: PaymentRow) =>
    facts.allocations.filter(
      (allocation) =>
        allocation.invoiceId === flow.invoiceId &&
        allocation.userId === payment.userId &&
        allocation.currency === payment.currency &&
        directionOf(allocation.type) === payment.direction &&
        allocation.transactionCreated > payment.created &&
        (!payment.completedAt || allocation.transactionCreated <= payment.completedAt),
    );
  const inputs = payments.map((payment) => ({
    batch: payment.batch,
    direction: payment.direction,
    created: payment.modified,
    completedAt: payment.completedAt ?? undefined,
    transactionIds: [...new Set(paidBy(payment).map((allocation) => allocation.transactionId))],
  }));
  const { states, batches, flowStatus } = deriveStatuses(inputs);
  const views: PaymentView[] = payments.map((payment, index) => ({
    payment: {
      id: payment.id,
      amount: payment.amount,
      created: payment.created.toISOString(),
      currency: payment.currency,
      direction: payment.direction,
      modified: states[index].changed.toISOString(),
      payment_account_id: payment.paymentAccountId,
      payment_flow_id: flow.id,
      status: states[index].status,
      transaction_ids: inputs[index].transactionIds,
    },
    planEntry: {
      amount: payment.amount,
      currency: payment.currency,
      direction: payment.direction,
      payment_id: payment.id,
      status: states[index].status,
      user: { id: payment.userId, external_id: payment.userExternalId },
    },
  }));
  const modified = new Date(Math.max(flow.generatedAt.getTime(), ...states.map((state) => state.changed.getTime())));
  return {
    payments: views.map((view) => view.payment),
    flow: {
      id: flow.id,
      created: flow.created.toISOString(),
      external_id: flow.externalId,
      invoice: { id: flow.invoiceId, external_id: flow.invoiceId },
      modified: modified.toISOString(),
      payment_plan: {
        batches: batches.map((batch) => ({
          batch_id: batch.batchId,
          depends_on: batch.dependsOn,
          label: batch.label,
          status: batch.status,
          payments: batch.paymentIndexes.map((index) => views[index].planEntry),
        })),
        generated_at: flow.generatedAt.toISOString(),
        invoice_id: flow.invoiceId,
        version: flow.planVersion,
      },
      status: flowStatus,
      type: flow.type,
    },
  };
}
