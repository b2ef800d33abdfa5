import { groupBy } from '../../core/grouping.js';
import { planPayments } from '../../core/paymentPlans.js';
import {
  bumpPaymentPlan,
  ensurePaymentAccounts,
  insertPayments,
  lockFlowsOfInvoices,
  paymentsOfFlows,
  settlementFacts,
  updatePayments,
  type PaymentFlowRow,
  type PaymentRow,
} from '../../db/paymentFlows.js';
import type { Db } from '../../db/sql.js';
import { remainingOnInvoice } from './settlement.js';

// Keeping an invoice's flows in step with its balances, inside the transaction that changed
// them. After allocations (a synced transaction), open payments whose user has nothing left to
// pay or be paid complete, for good. After a line-item change the plan is regenerated (a new
// version): open payments take the new remaining amounts (or complete), payments appear for
// users and currencies that gained a remaining amount, and batches are renumbered.

const keyOf = (userId: string, currency: string, direction: string) => `${userId}|${currency}|${direction}`;

/** After allocations to these invoices: completes the payments they settle (no new plan). */
export async function followInvoices(
  db: Db,
  workspaceId: string,
  invoiceIds: readonly string[],
  moment: Date,
): Promise<void> {
  const flowsOf = groupBy(
    await lockFlowsOfInvoices(db, workspaceId, [...new Set(invoiceIds)]),
    (flow) => flow.invoiceId,
  );
  for (const invoiceId of [...flowsOf.keys()].sort())
    await followFlows(db, workspaceId, invoiceId, flowsOf.get(invoiceId)!, moment, false);
}

export async function followInvoice(
  db: Db,
  workspaceId: string,
  invoiceId: string,
  moment: Date,
  regenerate: boolean,
): Promise<void> {
  await followFlows(
    db,
    workspaceId,
    invoiceId,
    await lockFlowsOfInvoices(db, workspaceId, [invoiceId]),
    moment,
    regenerate,
  );
}

async function followFlows(
  db: Db,
  workspaceId: string,
  invoiceId: string,
  flows: readonly PaymentFlowRow[],
  moment: Date,
  regenerate: boolean,
): Promise<void> {
  if (flows.length === 0) return;
  const [facts, payments] = await Promise.all([
    settlementFacts(db, workspaceId, [invoiceId]),
    paymentsOfFlows(
      db,
      workspaceId,
      flows.map((flow) => flow.id),
    ),
  ]);
  const remaining = remainingOnInvoice(facts, invoiceId);
  const remainingOf = new Map(
    remaining.map((entry) => [keyOf(entry.user, entry.currency, entry.direction), entry.amount]),
  );
  for (const flow of flows) {
    const own = payments.filter((payment) => payment.flowId === flow.id);
    const open = new Map(
      own
        .filter((payment) => !payment.completedAt)
        .map((payment) => [keyOf(payment.userId, payment.currency, payment.direction), payment]),
    );
    const fresh = regenerate
      ? planPayments(remaining).filter((planned) => !open.has(keyOf(planned.user, planned.currency, planned.direction)))
      : [];
    const hasInbound =
      own.some((payment) => payment.direction === 'inbound') ||
      fresh.some((planned) => planned.direction === 'inbound');
    const batchOf = (direction: string) => (direction === 'inbound' || !hasInbound ? 1 : 2);

    const changes = own.flatMap((payment) => {
      const left = remainingOf.get(keyOf(payment.userId, payment.currency, payment.direction)) ?? 0n;
      const next = nextState(payment, left, regenerate, batchOf(payment.direction), moment);
      return next ? [next] : [];
    });
    await updatePayments(db, workspaceId, changes);
    if (!regenerate) continue;
    const accounts = await ensurePaymentAccounts(
      db,
      workspaceId,
      fresh.map((planned) => ({ userId: planned.user, currency: planned.currency })),
    );
    await insertPayments(
      db,
      workspaceId,
      flow.id,
      moment,
      fresh.map((planned) => ({
        batch: batchOf(planned.direction),
        direction: planned.direction,
        userId: planned.user,
        currency: planned.currency,
        amount: planned.amount.toString(),
        paymentAccountId: accounts.get(`${planned.user}|${planned.currency}`)!,
      })),
      Math.max(0, ...own.map((payment) => payment.position)) + 1,
    );
    await bumpPaymentPlan(db, workspaceId, flow.id, moment);
  }
}

/** The payment's new state, or undefined when nothing about it changes. */
function nextState(payment: PaymentRow, left: bigint, regenerate: boolean, batch: number, moment: Date) {
  const state = {
    id: payment.id,
    batch: payment.batch,
    amount: payment.amount,
    modified: payment.modified,
    completedAt: payment.completedAt,
  };
  if (!payment.completedAt && left <= 0n) Object.assign(state, { completedAt: moment, modified: moment });
  if (regenerate && !payment.completedAt && left > 0n && left.toString() !== payment.amount)
    Object.assign(state, { amount: left.toString(), modified: moment });
  if (regenerate) state.batch = batch;
  const changed =
    state.batch !== payment.batch || state.amount !== payment.amount || state.completedAt !== payment.completedAt;
  return changed ? state : undefined;
}
