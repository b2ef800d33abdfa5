import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveStatuses, planPayments, type Direction, type Remaining } from '../../src/core/paymentPlans.js';

// Settlement plans: every positive remaining payin is collected in batch 1, every positive
// remaining payout disbursed after it; statuses are derived from completions and never go back.

const at = (minute: number) => new Date(Date.UTC(2026, 10, 2, 10, minute));
const remainingOf = (user: string, currency: string, direction: Direction, amount: bigint): Remaining => ({
  user,
  sortKey: `ext-${user}`,
  currency,
  direction,
  amount,
});

// What remainingOnInvoice gives: one entry per user, currency and direction, of any sign.
const remainingList = fc.uniqueArray(
  fc
    .record({
      user: fc.constantFrom('u1', 'u2', 'u3', 'u10'),
      currency: fc.constantFrom('EUR', 'USD', 'USDC'),
      direction: fc.constantFrom('inbound' as const, 'outbound' as const),
      amount: fc.bigInt({ min: -(1n << 100n), max: 1n << 100n }),
    })
    .map(({ user, currency, direction, amount }) => remainingOf(user, currency, direction, amount)),
  { selector: (entry) => `${entry.user}|${entry.currency}|${entry.direction}`, maxLength: 16 },
);

/** A plan as the database holds it: planned payments, each completed at some minute or not yet. */
const plannedWithCompletions = remainingList
  .chain((remaining) => {
    const planned = planPayments(remaining);
    return fc.tuple(
      fc.constant(planned),
      fc.array(fc.option(fc.integer({ min: 1, max: 59 }), { nil: undefined }), {
        minLength: planned.length,
        maxLength: planned.length,
      }),
    );
  })
  .map(([planned, minutes]) =>
    planned.map((payment, index) => ({
      batch: payment.batch,
      direction: payment.direction,
      created: at(0),
      completedAt: minutes[index] === undefined ? undefined : at(minutes[index]),
    })),
  );

// Progress order of statuses: blocked < pending < in_progress (flows only) < completed.
const RANK: Record<string, number> = { blocked: 0, pending: 1, in_progress: 1.5, completed: 2 };

describe('planPayments', () => {
  it("plans inv-1001: collect the customer's payins, then disburse the merchant's payouts", () => {
    const planned = planPayments([
      remainingOf('user_m', 'USD', 'outbound', 2200n),
      remainingOf('user_c', 'USD', 'inbound', 3000n),
      remainingOf('user_c', 'USD', 'outbound', 0n),
      remainingOf('user_m', 'EUR', 'inbound', -5n),
    ]);
    expect(planned).toEqual([
      { user: 'user_c', sortKey: 'ext-user_c', currency: 'USD', direction: 'inbound', amount: 3000n, batch: 1 },
      { user: 'user_m', sortKey: 'ext-user_m', currency: 'USD', direction: 'outbound', amount: 2200n, batch: 2 },
    ]);
  });

  it('numbers the payout batch 1 when nothing is left to collect', () => {
    expect(planPayments([remainingOf('m', 'USD', 'outbound', 2200n), remainingOf('c', 'USD', 'inbound', 0n)])).toEqual([
      { user: 'm', sortKey: 'ext-m', currency: 'USD', direction: 'outbound', amount: 2200n, batch: 1 },
    ]);
    expect(planPayments([remainingOf('c', 'USD', 'inbound', 0n), remainingOf('m', 'USD', 'outbound', -1n)])).toEqual(
      [],
    );
  });

  it("sorts by the user's external id, then currency, in code-unit order", () => {
    const planned = planPayments([
      { user: 'x', sortKey: 'b', currency: 'USD', direction: 'inbound', amount: 1n },
      { user: 'y', sortKey: 'B', currency: 'USDC', direction: 'inbound', amount: 1n },
      { user: 'x', sortKey: 'b', currency: 'EUR', direction: 'inbound', amount: 1n },
      { user: 'y', sortKey: 'B', currency: 'USD', direction: 'inbound', amount: 1n },
    ]);
    expect(planned.map((payment) => `${payment.sortKey}:${payment.currency}`)).toEqual([
      'B:USD',
      'B:USDC',
      'b:EUR',
      'b:USD',
    ]);
  });

  it('plans each positive remaining amount exactly once, and nothing else', () => {
    // Law: planned payments (without batch) = the positive entries of the input, as a set; the amounts covered are exactly those remaining.
    fc.assert(
      fc.property(remainingList, (remaining) => {
        const planned = planPayments(remaining);
        const key = (entry: Remaining) => `${entry.user}|${entry.currency}|${entry.direction}|${entry.amount}`;
        expect(planned.map(key).sort()).toEqual(
          remaining
            .filter((entry) => entry.amount > 0n)
            .map(key)
            .sort(),
        );
        for (const direction of ['inbound', 'outbound'] as const) {
          const total = (list: readonly Remaining[]) =>
            list.filter((e) => e.direction === direction && e.amount > 0n).reduce((s, e) => s + e.amount, 0n);
          expect(total(planned)).toBe(total(remaining));
        }
      }),
    );
  });

  it('forms well-made batches: payins in 1, payouts after them, numbered from 1 without gaps', () => {
    // Law: inbound ⇒ batch 1; outbound ⇒ batch 2 iff an inbound exists, else 1; all inbound precede all outbound.
    fc.assert(
      fc.property(remainingList, (remaining) => {
        const planned = planPayments(remaining);
        const hasInbound = planned.some((payment) => payment.direction === 'inbound');
        for (const payment of planned)
          expect(payment.batch).toBe(payment.direction === 'inbound' || !hasInbound ? 1 : 2);
        const batches = [...new Set(planned.map((payment) => payment.batch))];
        expect(batches).toEqual(batches.map((_batch, index) => index + 1));
        const firstOutbound = planned.findIndex((payment) => payment.direction === 'outbound');
        if (firstOutbound >= 0)
          expect(planned.slice(firstOutbound).every((payment) => payment.direction === 'outbound')).toBe(true);
      }),
    );
  });

  it('does not depend on the order of the remaining amounts', () => {
    // Law: planPayments(π(R)) = planPayments(R); keys are unique, so the sort decides everything.
    const withPermutation = remainingList.chain((list) =>
      fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length })),
    );
    fc.assert(
      fc.property(withPermutation, ([list, shuffled]) => {
        expect(planPayments(shuffled)).toEqual(planPayments(list));
      }),
    );
  });
});

describe('deriveStatuses', () => {
  const plan = (completed: [Date | undefined, Date | undefined]) => [
    { batch: 1, direction: 'inbound' as const, created: at(0), completedAt: completed[0] },
    { batch: 2, direction: 'outbound' as const, created: at(0), completedAt: completed[1] },
  ];

  it('blocks the payouts while the payins are open', () => {
    expect(deriveStatuses(plan([undefined, undefined]))).toEqual({
      states: [
        { status: 'pending', changed: at(0) },
        { status: 'blocked', changed: at(0) },
      ],
      batches: [
        { batchId: 'batch_1', dependsOn: [], label: 'Collect payins', status: 'pending', paymentIndexes: [0] },
        {
          batchId: 'batch_2',
          dependsOn: ['batch_1'],
          label: 'Disburse payouts',
          status: 'blocked',
          paymentIndexes: [1],
        },
      ],
      flowStatus: 'pending',
    });
  });

  it('frees the payouts the moment the last payin completes (the replay example of settle-inv-1001)', () => {
    const derived = deriveStatuses(plan([at(30), undefined]));
    expect(derived.states).toEqual([
      { status: 'completed', changed: at(30) },
      { status: 'pending', changed: at(30) },
    ]);
    expect(derived.batches.map((batch) => batch.status)).toEqual(['completed', 'pending']);
    expect(derived.flowStatus).toBe('in_progress');
  });

  it("frees a batch at its dependency's latest completion, and completes the flow with the last payment", () => {
    const payments = [
      { batch: 1, direction: 'inbound' as const, created: at(0), completedAt: at(40) },
      { batch: 1, direction: 'inbound' as const, created: at(0), completedAt: at(20) },
      { batch: 2, direction: 'outbound' as const, created: at(5) },
    ];
    expect(deriveStatuses(payments).states[2]).toEqual({ status: 'pending', changed: at(40) });
    const done = deriveStatuses(
      payments.map((payment) => ({ ...payment, completedAt: payment.completedAt ?? at(50) })),
    );
    expect([done.batches.map((batch) => batch.status), done.flowStatus]).toEqual([
      ['completed', 'completed'],
      'completed',
    ]);
  });

  it('keeps a batch open while any of its payments is, even if others completed', () => {
    const derived = deriveStatuses([
      { batch: 1, direction: 'inbound', created: at(0), completedAt: at(10) },
      { batch: 1, direction: 'inbound', created: at(0) },
      { batch: 2, direction: 'outbound', created: at(0) },
    ]);
    expect(derived.batches.map((batch) => [batch.batchId, batch.status, batch.paymentIndexes])).toEqual([
      ['batch_1', 'pending', [0, 1]],
      ['batch_2', 'blocked', [2]],
    ]);
    expect(derived.states.map((state) => state.status)).toEqual(['completed', 'pending', 'blocked']);
    expect(derived.flowStatus).toBe('in_progress');
  });

  it('calls an empty plan completed, as the contract says ("also when the plan has no batches")', () => {
    expect(deriveStatuses([])).toEqual({ states: [], batches: [], flowStatus: 'completed' });
  });

  it('labels a lone payout batch and depends on nothing', () => {
    expect(deriveStatuses([{ batch: 1, direction: 'outbound', created: at(0) }]).batches).toEqual([
      { batchId: 'batch_1', dependsOn: [], label: 'Disburse payouts', status: 'pending', paymentIndexes: [0] },
    ]);
  });

  it("derives statuses by the contract's rules for any plan and completions", () => {
    // Law: a payment is completed iff it has a completion; a batch iff all its payments are; blocked iff its dependency is not;
    // the flow is completed iff every batch is, in_progress iff some payment is, pending otherwise; batches partition the payments.
    fc.assert(
      fc.property(plannedWithCompletions, (payments) => {
        const { states, batches, flowStatus } = deriveStatuses(payments);
        const batchDone = (batch: number) => payments.filter((p) => p.batch === batch).every((p) => p.completedAt);
        payments.forEach((payment, index) => {
          const expected = payment.completedAt
            ? 'completed'
            : payment.batch > 1 && !batchDone(payment.batch - 1)
              ? 'blocked'
              : 'pending';
          expect(states[index].status).toBe(expected);
          if (payment.completedAt) expect(states[index].changed).toEqual(payment.completedAt);
        });
        for (const batch of batches) {
          const number = Number(batch.batchId.slice('batch_'.length));
          expect(batch.dependsOn).toEqual(number > 1 ? [`batch_${number - 1}`] : []);
          expect(batch.label).toBe(
            payments[batch.paymentIndexes[0]].direction === 'inbound' ? 'Collect payins' : 'Disburse payouts',
          );
          expect(batch.status).toBe(
            batchDone(number) ? 'completed' : number > 1 && !batchDone(number - 1) ? 'blocked' : 'pending',
          );
        }
        expect(batches.flatMap((batch) => batch.paymentIndexes).sort((a, b) => a - b)).toEqual(
          payments.map((_p, index) => index),
        );
        const allDone = payments.every((p) => p.completedAt);
        expect(flowStatus).toBe(
          allDone ? 'completed' : payments.some((p) => p.completedAt) ? 'in_progress' : 'pending',
        );
      }),
    );
  });

  it('never moves a status backwards when more payments complete', () => {
    // Law: completions C ⊆ C' ⇒ rank(status under C') ≥ rank(status under C), for payments, batches and the flow.
    fc.assert(
      fc.property(plannedWithCompletions, fc.integer({ min: 0, max: 15 }), (payments, extra) => {
        const more = payments.map((payment, index) =>
          index <= extra && !payment.completedAt ? { ...payment, completedAt: at(59) } : payment,
        );
        const before = deriveStatuses(payments);
        const after = deriveStatuses(more);
        before.states.forEach((state, index) =>
          expect(RANK[after.states[index].status]).toBeGreaterThanOrEqual(RANK[state.status]),
        );
        before.batches.forEach((batch, index) =>
          expect(RANK[after.batches[index].status]).toBeGreaterThanOrEqual(RANK[batch.status]),
        );
        expect(RANK[after.flowStatus]).toBeGreaterThanOrEqual(RANK[before.flowStatus]);
      }),
    );
  });
});
