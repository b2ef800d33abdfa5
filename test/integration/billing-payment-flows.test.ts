import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBillingReferences } from '../../src/db/billingChecks.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Payment flows end to end: a plan that covers every payer and payee with the remaining
// amounts, payouts after the payins they depend on; statuses that move as transactions are
// synced; idempotent creation; paginated searches with cursors that cannot be forged.

let server: TestServer;
let acme: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  acme = await server.workspace('Flows');
  expect(
    (await call('POST', '/products', { code: 'beans', description: 'Beans', paid_by_roles: [{ name: 'buyer' }] }))
      .status,
  ).toBe(201);
});
afterAll(() => server?.close());

const call = (method: string, path: string, body?: unknown) =>
  rest(server.baseUrl, method, `/billing${path}`, { token: acme.token, body });
const item = (user: string, amount: string, type = 'payin', currency = 'USD') => ({
  description: `${type} ${user}`,
  product_id: 'beans',
  type,
  user: { external_id: user },
  currency_code: currency,
  price: { amount },
});
const pay = (
  externalId: string,
  amount: string,
  allocations: { invoice: string; user: string; amount: string; type?: string }[],
  currency = 'USD',
) =>
  call('POST', '/transactions', {
    account: { external_id: 'bank' },
    amount,
    currency,
    external_id: externalId,
    posted: '2026-11-05T10:00:00Z',
    allocations: allocations.map((a) => ({
      amount: a.amount,
      invoice_id: a.invoice,
      type: a.type ?? 'invoice_payin',
      user: { external_id: a.user },
    })),
  });

type Batch = {
  batch_id: string;
  depends_on: string[];
  label: string;
  status: string;
  payments: {
    amount: string;
    currency: string;
    direction: string;
    payment_id: string;
    status: string;
    user: { external_id: string };
  }[];
};

describe('a settlement plan', () => {
  let flow: { id: string; status: string; payment_plan: { batches: Batch[]; version: number } };
  beforeAll(async () => {
    expect(
      (
        await call('POST', '/invoices', {
          invoice_id: 'plan-1',
          line_items: [
            item('zoe', '1000'),
            item('amy', '400'),
            item('amy', '300', 'payin', 'EUR'),
            item('shop', '1500', 'payout'),
            item('courier', '100', 'payout'),
          ],
        })
      ).status,
    ).toBe(201);
    // Amy has already paid part of her USD share; the plan asks only for the rest.
    expect((await pay('pre-1', '150', [{ invoice: 'plan-1', user: 'amy', amount: '150' }])).status).toBe(201);
    const created = await call('POST', '/payment-flows', {
      external_id: 'flow-1',
      invoice: { id: 'plan-1' },
      type: 'single_invoice_settlement',
    });
    expect(created.status).toBe(201);
    flow = created.body.data;
  });

  it('collects every remaining payin, then disburses every payout, in an acyclic order', () => {
    const [payins, payouts] = flow.payment_plan.batches;
    expect(flow.payment_plan.batches.map((b) => [b.batch_id, b.depends_on, b.label, b.status])).toEqual([
      ['batch_1', [], 'Collect payins', 'pending'],
      ['batch_2', ['batch_1'], 'Disburse payouts', 'blocked'],
    ]);
    expect(payins.payments.map((p) => [p.user.external_id, p.currency, p.amount, p.direction, p.status])).toEqual([
      ['amy', 'EUR', '300', 'inbound', 'pending'],
      ['amy', 'USD', '250', 'inbound', 'pending'],
      ['zoe', 'USD', '1000', 'inbound', 'pending'],
    ]);
    expect(payouts.payments.map((p) => [p.user.external_id, p.amount, p.direction, p.status])).toEqual([
      ['courier', '100', 'outbound', 'blocked'],
      ['shop', '1500', 'outbound', 'blocked'],
    ]);
    expect([flow.status, flow.payment_plan.version]).toEqual(['pending', 1]);
  });

  it('moves as transactions pay it: payments, batches, the flow, and the payments read alone', async () => {
    const zoe = flow.payment_plan.batches[0].payments[2];
    expect((await pay('zoe-1', '600', [{ invoice: 'plan-1', user: 'zoe', amount: '600' }])).status).toBe(201);
    let current = (await call('GET', '/payment-flows/flow-1')).body.data;
    expect(current.payment_plan.batches[0].payments[2].status).toBe('pending');
    expect(current.status).toBe('pending');
    const zoeTx = await pay('zoe-2', '400', [{ invoice: 'plan-1', user: 'zoe', amount: '400' }]);
    current = (await call('GET', '/payment-flows/flow-1')).body.data;
    expect([current.payment_plan.batches[0].payments[2].status, current.status]).toEqual(['completed', 'in_progress']);
    const zoePayment = (await call('GET', `/payments/${zoe.payment_id}`)).body.data;
    expect(zoePayment).toMatchObject({
      status: 'completed',
      direction: 'inbound',
      amount: '1000',
      payment_flow_id: flow.id,
    });
    expect(zoePayment.transaction_ids).toEqual([
      (await call('GET', '/transactions?account=bank')).body.data.find(
        (t: { external_id: string }) => t.external_id === 'zoe-1',
      ).id,
      zoeTx.body.data.id,
    ]);

    await pay('amy-1', '250', [{ invoice: 'plan-1', user: 'amy', amount: '250' }]);
    await pay('amy-2', '300', [{ invoice: 'plan-1', user: 'amy', amount: '300' }], 'EUR');
    current = (await call('GET', '/payment-flows/flow-1')).body.data;
    expect(current.payment_plan.batches.map((b: Batch) => b.status)).toEqual(['completed', 'pending']);
    expect(current.payment_plan.batches[1].payments.map((p: { status: string }) => p.status)).toEqual([
      'pending',
      'pending',
    ]);

    await pay('out-1', '-1600', [
      { invoice: 'plan-1', user: 'shop', amount: '1500', type: 'invoice_payout' },
      { invoice: 'plan-1', user: 'courier', amount: '100', type: 'invoice_payout' },
    ]);
    current = (await call('GET', '/payment-flows/flow-1')).body.data;
    expect([current.status, ...current.payment_plan.batches.map((b: Batch) => b.status)]).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    expect(new Date(current.modified).getTime()).toBeGreaterThan(new Date(current.created).getTime());
  });

  it('is created once for concurrent identical requests, and refuses a reused key or an unknown invoice', async () => {
    expect((await call('POST', '/invoices', { invoice_id: 'plan-2', line_items: [item('ann', '10')] })).status).toBe(
      201,
    );
    const body = { external_id: 'flow-2', invoice: { external_id: 'plan-2' }, type: 'single_invoice_settlement' };
    const results = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/payment-flows', body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const reused = await call('POST', '/payment-flows', { ...body, invoice: { id: 'plan-1' } });
    expect([reused.status, reused.body.code]).toEqual([409, 'idempotency_key_reused']);
    const unknown = await call('POST', '/payment-flows', { ...body, external_id: 'flow-3', invoice: { id: 'nope' } });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'unknown_invoice']);
    expect((await call('GET', '/payment-flows/flow-3')).status).toBe(404);
  });

  it('with nothing left to settle has no batches and is completed', async () => {
    expect((await call('POST', '/invoices', { invoice_id: 'plan-3', line_items: [] })).status).toBe(201);
    const empty = (
      await call('POST', '/payment-flows', {
        external_id: 'flow-empty',
        invoice: { id: 'plan-3' },
        type: 'single_invoice_settlement',
      })
    ).body.data;
    expect([empty.status, empty.payment_plan.batches]).toEqual(['completed', []]);
  });
});

describe('a plan after the invoice changes', () => {
  it('is regenerated: a new version, open payments re-priced, new ones appended, completed ones kept', async () => {
    expect(
      (
        await call('POST', '/invoices', {
          invoice_id: 'regen-1',
          line_items: [item('ann', '100'), item('bob', '200'), item('shop', '250', 'payout')],
        })
      ).status,
    ).toBe(201);
    const created = (
      await call('POST', '/payment-flows', {
        external_id: 'regen-flow',
        invoice: { id: 'regen-1' },
        type: 'single_invoice_settlement',
      })
    ).body.data;
    const [annPayment, bobPayment] = created.payment_plan.batches[0].payments;
    expect((await pay('regen-ann', '100', [{ invoice: 'regen-1', user: 'ann', amount: '100' }])).status).toBe(201);

    const invoice = (await call('GET', '/invoices/regen-1')).body.data;
    const [annItem, bobItem] = invoice.line_items;
    const patched = await call('PATCH', '/invoices/regen-1', {
      current_invoice_version: 1,
      line_items: {
        update: [
          { id: bobItem.id, price: { unit_price: '150', quantity: 1 } },
          { id: annItem.id, price: { unit_price: '130', quantity: 1 } },
        ],
        create: [item('cat', '40')],
      },
    });
    expect(patched.status).toBe(200);
    const flow = (await call('GET', '/payment-flows/regen-flow')).body.data;
    expect(flow.payment_plan.version).toBe(2);
    expect(new Date(flow.payment_plan.generated_at).getTime()).toBeGreaterThan(
      new Date(created.payment_plan.generated_at).getTime(),
    );
    const payins = flow.payment_plan.batches[0].payments.map(
      (p: { payment_id: string; user: { external_id: string }; amount: string; status: string }) => [
        p.payment_id === annPayment.payment_id
          ? 'ann-first'
          : p.payment_id === bobPayment.payment_id
            ? 'bob-first'
            : 'new',
        p.user.external_id,
        p.amount,
        p.status,
      ],
    );
    // Ann paid 100 before her line went up to 130: her first payment stays completed, a new one asks for the 30 left.
    expect(payins).toEqual([
      ['ann-first', 'ann', '100', 'completed'],
      ['bob-first', 'bob', '150', 'pending'],
      ['new', 'ann', '30', 'pending'],
      ['new', 'cat', '40', 'pending'],
    ]);
    expect(flow.payment_plan.batches[1]).toMatchObject({
      batch_id: 'batch_2',
      depends_on: ['batch_1'],
      status: 'blocked',
    });

    // Deleting bob's line leaves nothing for him to pay: his open payment completes.
    const deleted = await call('PATCH', '/invoices/regen-1', {
      current_invoice_version: 2,
      line_items: { delete: [{ id: bobItem.id }] },
    });
    expect(deleted.status).toBe(200);
    const after = (await call('GET', '/payment-flows/regen-flow')).body.data;
    expect(after.payment_plan.version).toBe(3);
    expect(
      after.payment_plan.batches[0].payments.find((p: { payment_id: string }) => p.payment_id === bobPayment.payment_id)
        .status,
    ).toBe('completed');
    const tagOnly = await call('PATCH', '/invoices/regen-1', {
      current_invoice_version: 3,
      tags: { set: [{ key: 'k', value: 'v' }] },
    });
    expect(tagOnly.status).toBe(200);
    expect((await call('GET', '/payment-flows/regen-flow')).body.data.payment_plan.version).toBe(3);
    expect((await call('GET', `/payments/${bobPayment.payment_id}`)).body.data).toMatchObject({
      status: 'completed',
      amount: '150',
      transaction_ids: [],
    });
  });
});

describe('searches', () => {
  it('page through flows and payments with cursors, and refuse cursors they did not issue', async () => {
    for (let n = 0; n < 5; n++) {
      expect(
        (
          await call('POST', '/invoices', {
            invoice_id: `page-${n}`,
            line_items: [item('ann', '10'), item('bob', '5', 'payout')],
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await call('POST', '/payment-flows', {
            external_id: `page-flow-${n}`,
            invoice: { id: `page-${n}` },
            type: 'single_invoice_settlement',
          })
        ).status,
      ).toBe(201);
    }
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await call('POST', '/payment-flows/search', {
        page_info: { limit: 2, ...(after ? { after } : {}) },
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((f: { external_id: string }) => f.external_id));
      after = page.body.page_info.next_cursor;
      pages++;
    } while (after);
    expect(seen).toEqual([
      'flow-1',
      'flow-2',
      'flow-empty',
      'regen-flow',
      ...Array.from({ length: 5 }, (_, n) => `page-flow-${n}`),
    ]);
    expect(pages).toBe(5);

    const byInvoice = (await call('POST', '/payment-flows/search', { invoice_id: 'page-3' })).body.data;
    expect(byInvoice.map((f: { external_id: string }) => f.external_id)).toEqual(['page-flow-3']);
    const flowPayments = await call('POST', '/payments/search', {
      payment_flow_id: byInvoice[0].id,
      page_info: { limit: 1 },
    });
    expect(flowPayments.body.data.map((p: { direction: string }) => p.direction)).toEqual(['inbound']);
    const next = await call('POST', '/payments/search', {
      payment_flow_id: byInvoice[0].id,
      page_info: { limit: 1, after: flowPayments.body.page_info.next_cursor },
    });
    expect([next.body.data.map((p: { direction: string }) => p.direction), next.body.page_info]).toEqual([
      ['outbound'],
      {},
    ]);

    const flowCursor = (await call('POST', '/payment-flows/search', { page_info: { limit: 1 } })).body.page_info
      .next_cursor as string;
    for (const cursor of [flowCursor, `${flowCursor.slice(0, -1)}A`, 'not-a-cursor', `${'x'.repeat(3000)}.y`]) {
      const refused = await call('POST', '/payments/search', { page_info: { after: cursor } });
      expect([refused.status, refused.body.code, refused.body.details.violations[0].pointer]).toEqual([
        400,
        'invalid_request',
        '/body/page_info/after',
      ]);
    }
    expect((await call('POST', '/payment-flows/search')).status).toBe(200);
  });
});

// Runs last: every write above named only rows that exist (billing rows have no foreign keys).
describe('after all the writes above', () => {
  it('leaves no billing row naming a missing invoice, product, user, transaction or account', async () => {
    expect(await checkBillingReferences(server.db.sql)).toEqual([]);
  });
});
