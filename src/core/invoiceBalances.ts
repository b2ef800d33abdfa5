// Invoice balances: per currency, `expected` sums line items and `actual` sums allocations,
// separately for payins and payouts; remaining = expected − actual; net = payins − payouts.
// Exact bigint arithmetic; the same rows per user of the invoice. Generic in the currency type, so
// a caller's currency codes come back with the type they went in with.

export type Flow = 'payin' | 'payout';
export type Movement<C extends string = string> = { flow: Flow; currency: C; user: string; amount: bigint };
type Amounts = { actual: string; expected: string; remaining: string };
export type BalanceRow<C extends string = string> = { currency: C; net: Amounts; payins: Amounts; payouts: Amounts };

type Sums = { expected: bigint; actual: bigint };

function rows<C extends string>(expected: readonly Movement<C>[], actual: readonly Movement<C>[]): BalanceRow<C>[] {
  const byCurrency = new Map<C, Record<Flow, Sums>>();
  const add = (movement: Movement<C>, field: keyof Sums) => {
    const sums = byCurrency.get(movement.currency) ?? {
      payin: { expected: 0n, actual: 0n },
      payout: { expected: 0n, actual: 0n },
    };
    sums[movement.flow][field] += movement.amount;
    byCurrency.set(movement.currency, sums);
  };
  for (const movement of expected) add(movement, 'expected');
  for (const movement of actual) add(movement, 'actual');
  const present = (sums: Sums): Amounts => ({
    actual: sums.actual.toString(),
    expected: sums.expected.toString(),
    remaining: (sums.expected - sums.actual).toString(),
  });
  return [...byCurrency]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, sums]) => ({
      currency,
      net: present({
        expected: sums.payin.expected - sums.payout.expected,
        actual: sums.payin.actual - sums.payout.actual,
      }),
      payins: present(sums.payin),
      payouts: present(sums.payout),
    }));
}

/** Invoice-level rows, and rows per user (every user on a line item or an allocation), by user. */
export function invoiceBalances<C extends string>(
  lineItems: readonly Movement<C>[],
  allocations: readonly Movement<C>[],
) {
  const users = [...new Set([...lineItems, ...allocations].map((movement) => movement.user))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return {
    balances: rows(lineItems, allocations),
    users: users.map((user) => ({
      id: user,
      external_id: user,
      balances: rows(
        lineItems.filter((m) => m.user === user),
        allocations.filter((m) => m.user === user),
      ),
    })),
  };
}
