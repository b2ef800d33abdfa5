import type { HttpCase } from './restCases.js';
import { HOSTILE_STRINGS, type Random } from './random.js';

// Billing writes that satisfy the contract's schemas but break a rule the handlers enforce:
// stale versions, line items of another invoice, unknown products, users, invoices and
// accounts, inconsistent prices, amounts beyond 2^120 − 1, tag-operation conflicts,
// over-allocation, reused keys and forged cursors. Every one must be refused with a typed 4xx, writing nothing.

export const BILLING_WORLD = {
  invoice: 'fz-inv-1',
  otherInvoice: 'fz-inv-2',
  transaction: 'fz-tx-1',
  account: 'fz-bank',
  create: (id: string) => ({
    invoice_id: id,
    line_items: [
      {
        description: 'Beans',
        product_id: 'coffee-beans',
        type: 'payin',
        user: { external_id: 'fz-buyer' },
        price: { unit_price: '100', quantity: 2 },
      },
      {
        description: 'Share',
        product_id: 'coffee-beans',
        type: 'payout',
        user: { external_id: 'fz-seller' },
        price: { amount: '150' },
        tags: [{ key: 'k', value: 'v' }],
      },
    ],
    tags: [{ key: 'channel', value: 'web' }],
  }),
  sync: {
    account: { external_id: 'fz-bank' },
    allocations: [{ amount: '200', invoice_id: 'fz-inv-1', type: 'invoice_payin', user: { external_id: 'fz-buyer' } }],
    amount: '250',
    currency: 'USD',
    external_id: 'fz-tx-1',
    posted: '2026-11-05T10:00:00Z',
  },
};

export type BillingWorldIds = { lineItems: string[]; otherLineItems: string[]; accountId: string; userId: string };

const BEYOND = (1n << 120n).toString();
const MISSING_LINE = 'li_01m6dv5an0apf3py6ckxd5cg15';
const MISSING_USER = 'user_01m6dv5an0apf3py6ckxd5cg15';
const MISSING_ACCOUNT = 'ext_account_01m6g3a9c0442dcdqzr9y6jjf2';

export function billingCaseGenerator(token: string, ids: BillingWorldIds) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const request = (
    kind: string,
    operation: string,
    method: string,
    path: string,
    body: unknown,
    random: Random,
  ): HttpCase => ({
    kind: `billing:${kind}`,
    operation,
    method,
    path: `${random.pick(['/billing', ''])}${path}`,
    headers,
    body: JSON.stringify(body),
    writes: true,
  });
  const newItem = (random: Random, overrides: Record<string, unknown> = {}) => ({
    description: 'New',
    product_id: 'tea',
    type: 'payin',
    user: { external_id: `fz-new-${random.int(0, 1e6)}` },
    price: { amount: '10' },
    ...overrides,
  });
  /** A line item (or price) that must be refused, whatever else the request does right. */
  const badItem = (random: Random) =>
    random.pick<Record<string, unknown>>([
      newItem(random, {
        product_id: random.pick(['no-such-product', 'prod_01m6dv5an0apf3py6ckxd5cg15', random.pick(HOSTILE_STRINGS)]),
      }),
      newItem(random, { user: { id: MISSING_USER } }),
      newItem(random, { price: { amount: '21', unit_price: '10', quantity: 2 } }),
      newItem(random, { price: { amount: BEYOND } }),
      newItem(random, { price: { unit_price: BEYOND.slice(0, 36), quantity: 2147483647 } }),
      newItem(random, { amount: '11', price: { amount: '10' } }),
      newItem(random, { price: undefined }),
      newItem(random, {
        tags: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      }),
    ]);
  const invoicePath = `/invoices/${BILLING_WORLD.invoice}`;

  const generators: ((random: Random) => HttpCase)[] = [
    // PATCH with a stale version, whatever it asks for.
    (random) =>
      request(
        'stale-version',
        'updateInvoice',
        'PATCH',
        invoicePath,
        { current_invoice_version: random.int(2, 50), tags: { set: [{ key: 'x', value: 'y' }] } },
        random,
      ),
    // PATCH naming line items that are not this invoice's, twice, or changing them badly.
    (random) =>
      request(
        'line-items',
        'updateInvoice',
        'PATCH',
        invoicePath,
        {
          current_invoice_version: 1,
          line_items: random.pick([
            { delete: [{ id: random.pick([MISSING_LINE, ...ids.otherLineItems]) }] },
            { update: [{ id: random.pick([MISSING_LINE, ...ids.otherLineItems]), description: 'x' }] },
            { update: [{ id: ids.lineItems[0], description: 'x' }], delete: [{ id: ids.lineItems[0] }] },
            { delete: [{ id: ids.lineItems[1] }, { id: ids.lineItems[1] }] },
            { update: [{ id: ids.lineItems[0], price: { unit_price: '10', quantity: 3, amount: '31' } }] },
            { update: [{ id: ids.lineItems[0], price: { unit_price: BEYOND.slice(0, 36), quantity: 99 } }] },
            { update: [{ id: ids.lineItems[1], tags: { create: [{ key: 'k', value: 'again' }] } }] },
            { create: [newItem(random), badItem(random)] },
          ]),
        },
        random,
      ),
    // PATCH tag operations that contradict each other or the invoice's tags.
    (random) =>
      request(
        'tag-ops',
        'updateInvoice',
        'PATCH',
        invoicePath,
        {
          current_invoice_version: 1,
          tags: random.pick([
            { create: [{ key: 'channel', value: 'app' }] },
            { update: [{ key: 'missing', value: 'v' }] },
            { set: [{ key: 'a', value: '1' }], delete: [{ key: 'a' }] },
            {
              set: [
                { key: 'a', value: '1' },
                { key: 'a', value: '2' },
              ],
            },
          ]),
        },
        random,
      ),
    // The earlier POST update, wrong in the same ways.
    (random) =>
      request(
        'legacy-update',
        'updateInvoiceLegacy',
        'POST',
        invoicePath,
        random.pick([
          { version: random.int(2, 50), line_items_update: [{ op: 'delete', id: ids.lineItems[0] }] },
          { version: 1, line_items_update: [{ op: 'delete', id: random.pick([MISSING_LINE, ...ids.otherLineItems]) }] },
          {
            version: 1,
            line_items_update: [
              { op: 'update', id: ids.lineItems[0], amount: '5' },
              { op: 'delete', id: ids.lineItems[0] },
            ],
          },
          { version: 1, line_items_update: [{ op: 'update', id: ids.lineItems[0], amount: BEYOND }] },
          {
            version: 1,
            line_items_update: [
              {
                op: 'add',
                amount: '5',
                currency_code: 'USD',
                description: 'd',
                product_id: 'no-such-product',
                type: 'payin',
                user_id: 'fz-new',
              },
            ],
          },
        ]),
        random,
      ),
    // Creates: a reused invoice id with another body, or a new id with a bad line item.
    (random) =>
      request(
        'create',
        'createInvoice',
        'POST',
        '/invoices',
        random.pick([
          { ...BILLING_WORLD.create(BILLING_WORLD.invoice), tags: [] },
          { ...BILLING_WORLD.create(BILLING_WORLD.otherInvoice), line_items: [] },
          { invoice_id: `fz-new-${random.int(0, 1e6)}`, line_items: [newItem(random), badItem(random)] },
          {
            invoice_id: `fz-new-${random.int(0, 1e6)}`,
            line_items: [],
            tags: [
              { key: 'k', value: '1' },
              { key: 'k', value: '1' },
            ],
          },
          {
            invoiceId: `fz-new-${random.int(0, 1e6)}`,
            lineItems: [
              {
                amount: BEYOND,
                currencyCode: 'USD',
                description: 'd',
                product_id: 'tea',
                type: 'payin',
                user_id: 'fz-new',
              },
            ],
          },
        ]),
        random,
      ),
    // Syncs: a reused external id, or a new one that breaks an allocation or account rule.
    (random) => {
      const fresh = { ...BILLING_WORLD.sync, external_id: `fz-tx-new-${random.int(0, 1e6)}` };
      const allocation = (overrides: Record<string, unknown>) => ({
        ...BILLING_WORLD.sync.allocations[0],
        ...overrides,
      });
      return request(
        'sync',
        'syncTransaction',
        'POST',
        '/transactions',
        random.pick<Record<string, unknown>>([
          { ...BILLING_WORLD.sync, amount: '251' },
          { ...BILLING_WORLD.sync, posted: '2026-11-05T10:00:01Z' },
          {
            ...fresh,
            amount: '100',
            allocations: [allocation({ amount: '60' }), allocation({ amount: '41', user: { external_id: 'fz-new' } })],
          },
          { ...fresh, amount: '-100', allocations: [allocation({ amount: '101' })] },
          {
            ...fresh,
            allocations: [allocation({ invoice_id: random.pick(['fz-missing', random.pick(HOSTILE_STRINGS)]) })],
          },
          { ...fresh, allocations: [allocation({ user: { id: MISSING_USER } })] },
          { ...fresh, account: { id: MISSING_ACCOUNT } },
          { ...fresh, account: { id: ids.accountId, external_id: 'fz-other-bank' } },
          { ...fresh, amount: random.pick([BEYOND, `-${BEYOND}`]) },
          { ...fresh, allocations: [allocation({ amount: BEYOND })] },
          {
            ...fresh,
            tags: [
              { key: 'k', value: '1' },
              { key: 'k', value: '2' },
            ],
          },
        ]),
        random,
      );
    },
    // Flows: a reused key, an unknown invoice; searches with cursors this server never issued.
    (random) =>
      request(
        'flow',
        'createPaymentFlow',
        'POST',
        '/payment-flows',
        random.pick<Record<string, unknown>>([
          { external_id: 'fz-flow-1', invoice: { id: BILLING_WORLD.otherInvoice }, type: 'single_invoice_settlement' },
          {
            external_id: `fz-flow-new-${random.int(0, 1e6)}`,
            invoice: random.pick([{ id: 'fz-missing' }, { external_id: random.pick(HOSTILE_STRINGS) }]),
            type: 'single_invoice_settlement',
          },
        ]),
        random,
      ),
    (random) =>
      request(
        'cursor',
        random.pick(['searchPaymentFlows', 'searchPayments']),
        'POST',
        random.pick(['/payment-flows/search', '/payments/search']),
        {
          page_info: {
            after: random.pick([
              'x',
              'eyJhIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA',
              `${'a'.repeat(5000)}.b`,
              random.pick(HOSTILE_STRINGS),
            ]),
            limit: random.int(1, 200),
          },
        },
        random,
      ),
  ];
  return { next: (random: Random) => random.pick(generators)(random) };
}
