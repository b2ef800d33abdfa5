// Payment plans of `single_invoice_settlement` flows. A plan collects every positive remaining
// payin (inbound, batch "Collect payins") and then disburses every positive remaining payout
// (outbound, batch "Disburse payouts", after the payins). Statuses are derived: a payment is
// completed once the invoice's remaining amount for its user, currency and direction is zero or
// less; a batch follows its payments and its dependencies; the flow follows its batches.

export type Direction = 'inbound' | 'outbound';
/** `user` identifies the user; `sortKey` (the external id) orders the plan; the caller's currency type passes through. */
export type Remaining<Currency extends string = string> = {
  user: string;
  sortKey: string;
  currency: Currency;
  direction: Direction;
  amount: bigint;
};
export type PlannedPayment<Currency extends string = string> = Remaining<Currency> & { batch: number };

const LABELS: Record<Direction, string> = { inbound: 'Collect payins', outbound: 'Disburse payouts' };
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The payments of a new plan, with batch numbers (batches without payments are left out). */
export function planPayments<Currency extends string>(
  remaining: readonly Remaining<Currency>[],
): PlannedPayment<Currency>[] {
  const positive = remaining
    .filter((item) => item.amount > 0n)
    .sort((a, b) => byText(a.sortKey, b.sortKey) || byText(a.currency, b.currency));
  const inbound = positive.filter((item) => item.direction === 'inbound');
  const outbound = positive.filter((item) => item.direction === 'outbound');
  return [
    ...inbound.map((item) => ({ ...item, batch: 1 })),
    ...outbound.map((item) => ({ ...item, batch: inbound.length > 0 ? 2 : 1 })),
  ];
}

export type PaymentState = { status: 'blocked' | 'pending' | 'completed'; changed: Date };
export type BatchView = {
  batchId: string;
  dependsOn: string[];
  label: string;
  status: 'blocked' | 'pending' | 'completed';
  paymentIndexes: number[];
};

/**
 * Statuses and the moment each last changed, from each payment's completion moment (undefined
 * while its remaining amount is above zero). The payout batch depends on the payin batch.
 */
export function deriveStatuses(
  payments: readonly { batch: number; direction: Direction; created: Date; completedAt?: Date }[],
) {
  const batchNumbers = [...new Set(payments.map((payment) => payment.batch))].sort((a, b) => a - b);
  const completedAt = new Map<number, Date | undefined>(
    batchNumbers.map((batch) => {
      const members = payments.filter((payment) => payment.batch === batch);
      const done = members.every((payment) => payment.completedAt);
      return [
        batch,
        done ? new Date(Math.max(...members.map((payment) => payment.completedAt!.getTime()))) : undefined,
      ];
    }),
  );
  const dependency = (batch: number) => (batch > 1 ? batch - 1 : undefined);
  const states: PaymentState[] = payments.map((payment) => {
    if (payment.completedAt) return { status: 'completed', changed: payment.completedAt };
    const before = dependency(payment.batch);
    if (before === undefined) return { status: 'pending', changed: payment.created };
    const unblocked = completedAt.get(before);
    return unblocked ? { status: 'pending', changed: unblocked } : { status: 'blocked', changed: payment.created };
  });
  const batches: BatchView[] = batchNumbers.map((batch) => {
    const before = dependency(batch);
    const direction = payments.find((payment) => payment.batch === batch)!.direction;
    const status = completedAt.get(batch)
      ? 'completed'
      : before !== undefined && !completedAt.get(before)
        ? 'blocked'
        : 'pending';
    return {
      batchId: `batch_${batch}`,
      dependsOn: before !== undefined ? [`batch_${before}`] : [],
      label: LABELS[direction],
      status,
      paymentIndexes: payments.flatMap((payment, index) => (payment.batch === batch ? [index] : [])),
    };
  });
  const flowStatus: 'pending' | 'in_progress' | 'completed' = batches.every((batch) => batch.status === 'completed')
    ? 'completed'
    : states.some((state) => state.status === 'completed')
      ? 'in_progress'
      : 'pending';
  return { states, batches, flowStatus };
}
