import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { invoiceBalances, type BalanceRow, type Movement } from '../../src/core/invoiceBalances.js';

// Invoice balances (getInvoice): per currency, expected sums line items and actual sums allocations,
// for payins and payouts; remaining = expected − actual, net = payins − payouts; the same per user.

const movement = fc.record({
  flow: fc.constantFrom('payin' as const, 'payout' as const),
  currency: fc.constantFrom('EUR', 'JPY', 'USD', 'USDC'),
  user: fc.constantFrom('B', 'a', 'customer-42', 'merchant-7'),
  // Allocations and prices are non-negative; far beyond 2^53 so a float would show.
  amount: fc.bigInt({ min: 0n, max: (1n << 120n) - 1n }),
});
const movements = fc.array(movement, { maxLength: 12 });
/** A list with one of its permutations. */
const withPermutation = movements.chain((list) =>
  fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length })),
);

const sum = (list: readonly Movement[], flow: 'payin' | 'payout', currency: string) =>
  list.filter((m) => m.flow === flow && m.currency === currency).reduce((total, m) => total + m.amount, 0n);

describe('invoiceBalances', () => {
  it('answers the contract example: inv-1001 after bank-tx-9001 paid the payins', () => {
    const lineItems: Movement[] = [
      { flow: 'payin', currency: 'USD', user: 'customer-42', amount: 2500n },
      { flow: 'payout', currency: 'USD', user: 'merchant-7', amount: 2200n },
      { flow: 'payin', currency: 'USD', user: 'customer-42', amount: 500n },
    ];
    const allocations: Movement[] = [{ flow: 'payin', currency: 'USD', user: 'customer-42', amount: 3000n }];
    expect(invoiceBalances(lineItems, allocations)).toEqual({
      balances: [
        {
          currency: 'USD',
          net: { actual: '3000', expected: '800', remaining: '-2200' },
          payins: { actual: '3000', expected: '3000', remaining: '0' },
          payouts: { actual: '0', expected: '2200', remaining: '2200' },
        },
      ],
      users: [
        {
          id: 'customer-42',
          external_id: 'customer-42',
          balances: [
            {
              currency: 'USD',
              net: { actual: '3000', expected: '3000', remaining: '0' },
              payins: { actual: '3000', expected: '3000', remaining: '0' },
              payouts: { actual: '0', expected: '0', remaining: '0' },
            },
          ],
        },
        {
          id: 'merchant-7',
          external_id: 'merchant-7',
          balances: [
            {
              currency: 'USD',
              net: { actual: '0', expected: '-2200', remaining: '-2200' },
              payins: { actual: '0', expected: '0', remaining: '0' },
              payouts: { actual: '0', expected: '2200', remaining: '2200' },
            },
          ],
        },
      ],
    });
  });

  it('has no rows for an invoice with nothing on it', () => {
    expect(invoiceBalances([], [])).toEqual({ balances: [], users: [] });
  });

  it('lists a user who only received an allocation, and an over-payment as a negative remaining', () => {
    const { balances, users } = invoiceBalances(
      [{ flow: 'payin', currency: 'EUR', user: 'a', amount: 100n }],
      [{ flow: 'payin', currency: 'EUR', user: 'b', amount: 150n }],
    );
    expect(balances[0].payins).toEqual({ actual: '150', expected: '100', remaining: '-50' });
    expect(users.map((user) => [user.id, user.balances[0].payins.remaining])).toEqual([
      ['a', '100'],
      ['b', '-150'],
    ]);
  });

  it('orders currencies by code and users by external id in code-unit order, not by locale', () => {
    // 'B' < 'a' in UTF-16 order; localeCompare would put 'a' first.
    const at = (currency: string, user: string): Movement => ({ flow: 'payin', currency, user, amount: 1n });
    const { balances, users } = invoiceBalances([at('USDC', 'b'), at('USD', 'a'), at('EUR', 'B')], []);
    expect(balances.map((row) => row.currency)).toEqual(['EUR', 'USD', 'USDC']);
    // id carries the external id, as line items' user_id does.
    expect(users.map((user) => [user.id, user.external_id])).toEqual([
      ['B', 'B'],
      ['a', 'a'],
      ['b', 'b'],
    ]);
    // A user's rows name only the currencies that user has.
    expect(users.map((user) => user.balances.map((row) => row.currency))).toEqual([['EUR'], ['USD'], ['USDC']]);
  });

  it("keeps the caller's currency type", () => {
    type Code = 'EUR' | 'USD';
    const { balances } = invoiceBalances<Code>([{ flow: 'payin', currency: 'EUR', user: 'a', amount: 1n }], []);
    expectTypeOf(balances).toEqualTypeOf<BalanceRow<Code>[]>();
    expect(balances[0].currency).toBe('EUR');
  });

  it('sums line items into expected and allocations into actual, exactly, per currency and flow', () => {
    // Law: payins.expected(c) = Σ payin line items in c; payins.actual(c) = Σ payin allocations in c; same for payouts.
    fc.assert(
      fc.property(movements, movements, (lineItems, allocations) => {
        const { balances } = invoiceBalances(lineItems, allocations);
        const currencies = [...new Set([...lineItems, ...allocations].map((m) => m.currency))].sort();
        expect(balances.map((row) => row.currency)).toEqual(currencies);
        for (const row of balances) {
          expect(row.payins.expected).toBe(sum(lineItems, 'payin', row.currency).toString());
          expect(row.payins.actual).toBe(sum(allocations, 'payin', row.currency).toString());
          expect(row.payouts.expected).toBe(sum(lineItems, 'payout', row.currency).toString());
          expect(row.payouts.actual).toBe(sum(allocations, 'payout', row.currency).toString());
        }
      }),
    );
  });

  it('keeps remaining = expected − actual and net = payins − payouts on every row', () => {
    // Law: for each of actual, expected, remaining: net = payins − payouts; for each of the three: remaining = expected − actual.
    fc.assert(
      fc.property(movements, movements, (lineItems, allocations) => {
        const { balances, users } = invoiceBalances(lineItems, allocations);
        for (const row of [...balances, ...users.flatMap((user) => user.balances)]) {
          for (const amounts of [row.net, row.payins, row.payouts]) {
            expect(BigInt(amounts.remaining)).toBe(BigInt(amounts.expected) - BigInt(amounts.actual));
          }
          for (const field of ['actual', 'expected', 'remaining'] as const) {
            expect(BigInt(row.net[field])).toBe(BigInt(row.payins[field]) - BigInt(row.payouts[field]));
          }
        }
      }),
    );
  });

  it('splits the invoice rows among its users: per-user rows add up to the invoice rows', () => {
    // Law: Σ over users of a (currency, flow, field) amount = the invoice's amount, and the users are exactly those mentioned.
    fc.assert(
      fc.property(movements, movements, (lineItems, allocations) => {
        const { balances, users } = invoiceBalances(lineItems, allocations);
        expect(users.map((user) => user.id)).toEqual(
          [...new Set([...lineItems, ...allocations].map((m) => m.user))].sort(),
        );
        for (const row of balances) {
          for (const side of ['net', 'payins', 'payouts'] as const) {
            for (const field of ['actual', 'expected', 'remaining'] as const) {
              const total = users
                .flatMap((user) => user.balances)
                .filter((own) => own.currency === row.currency)
                .reduce((acc, own) => acc + BigInt(own[side][field]), 0n);
              expect(total).toBe(BigInt(row[side][field]));
            }
          }
        }
      }),
    );
  });

  it('does not depend on the order of line items or allocations', () => {
    // Law: invoiceBalances(π(L), σ(A)) = invoiceBalances(L, A) for any permutations π, σ.
    fc.assert(
      fc.property(
        withPermutation,
        withPermutation,
        ([lineItems, lineItemsShuffled], [allocations, allocationsShuffled]) => {
          expect(invoiceBalances(lineItemsShuffled, allocationsShuffled)).toEqual(
            invoiceBalances(lineItems, allocations),
          );
        },
      ),
    );
  });

  it("pays off exactly: allocating each line item's amount to its user leaves every remaining at zero", () => {
    // Law: invoiceBalances(L, L) has remaining 0 everywhere, and actual = expected.
    fc.assert(
      fc.property(movements, (lineItems) => {
        const { balances, users } = invoiceBalances(lineItems, lineItems);
        for (const row of [...balances, ...users.flatMap((user) => user.balances)]) {
          for (const amounts of [row.net, row.payins, row.payouts]) {
            expect(amounts.remaining).toBe('0');
            expect(amounts.actual).toBe(amounts.expected);
          }
        }
      }),
    );
  });
});
