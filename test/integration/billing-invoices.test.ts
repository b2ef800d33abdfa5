import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBillingReferences } from '../../src/db/billingChecks.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Invoices and transactions as a billing client uses them: balance arithmetic over currencies,
// users, partial and refused over-allocations; optimistic versions under concurrency; history
// diffs from both update forms; idempotent syncs; amounts at the contract's limit.

const MAX = ((1n << 120n) - 1n).toString();

let server: TestServer;
let acme: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  acme = await server.workspace('Acme');
  other = await server.workspace('Other');
  for (const workspace of [acme, other]) {
    expect(
      (
        await rest(server.baseUrl, 'POST', '/billing/products', {
          token: workspace.token,
          body: {
            code: 'beans',
            description: 'Beans',
            paid_by_roles: [{ name: 'buyer' }],
            paid_to_roles: [{ name: 'seller' }],
          },
        })
      ).status,
    ).toBe(201);
  }
});
afterAll(() => server?.close());

const call = (method: string, path: string, body?: unknown, workspace = acme) =>
  rest(server.baseUrl, method, `/billing${path}`, { token: workspace.token, body });
const item = (user: string, amount: string, extra: Record<string, unknown> = {}) => ({
  description: `item for ${user}`,
  product_id: 'beans',
  type: 'payin',
  user: { external_id: user },
  price: { amount },
  ...extra,
});
const sync = (externalId: string, amount: string, allocations: unknown[], extra: Record<string, unknown> = {}) =>
  call('POST', '/transactions', {
    account: { external_id: 'bank' },
    allocations,
    amount,
    currency: 'USD',
    external_id: externalId,
    posted: '2026-11-05T10:00:00+05:30',
    ...extra,
  });
const allocation = (invoiceId: string, user: string, amount: string, type = 'invoice_payin') => ({
  amount,
  invoice_id: invoiceId,
  type,
  user: { external_id: user },
});

describe('invoice balances', () => {
  it('sum line items and allocations per currency and per user, exactly', async () => {
    const created = await call('POST', '/invoices', {
      invoice_id: 'bal-1',
      line_items: [
        item('ann', '1000'),
        item('ann', '500', { currency_code: 'EUR' }),
        item('ben', '2000'),
        item('seller-1', '2500', { type: 'payout' }),
      ],
    });
    expect(created.status).toBe(201);
    expect(
      (await sync('bal-tx-1', '1200', [allocation('bal-1', 'ann', '700'), allocation('bal-1', 'ben', '500')])).status,
    ).toBe(201);
    expect((await sync('bal-tx-2', '-400', [allocation('bal-1', 'seller-1', '400', 'invoice_payout')])).status).toBe(
      201,
    );
    const invoice = (await call('GET', '/invoices/bal-1')).body.data;
    expect(invoice.balances).toEqual([
      {
        currency: 'EUR',
        payins: { expected: '500', actual: '0', remaining: '500' },
        payouts: { expected: '0', actual: '0', remaining: '0' },
        net: { expected: '500', actual: '0', remaining: '500' },
      },
      {
        currency: 'USD',
        payins: { expected: '3000', actual: '1200', remaining: '1800' },
        payouts: { expected: '2500', actual: '400', remaining: '2100' },
        net: { expected: '500', actual: '800', remaining: '-300' },
      },
    ]);
    expect(invoice.users.map((user: { id: string }) => user.id)).toEqual(['ann', 'ben', 'seller-1']);
    expect(invoice.users[0].balances[1]).toEqual({
      currency: 'USD',
      payins: { expected: '1000', actual: '700', remaining: '300' },
      payouts: { expected: '0', actual: '0', remaining: '0' },
      net: { expected: '1000', actual: '700', remaining: '300' },
    });
    expect(
      invoice.payments.map((payment: { amount: string; type: string; posted: string }) => [
        payment.amount,
        payment.type,
        payment.posted,
      ]),
    ).toEqual([
      ['700', 'payin', '2026-11-05T04:30:00.000Z'],
      ['500', 'payin', '2026-11-05T04:30:00.000Z'],
      ['400', 'payout', '2026-11-05T04:30:00.000Z'],
    ]);
  });

  it('keep amounts at 2^120 − 1 exact and refuse one beyond', async () => {
    expect(
      (await call('POST', '/invoices', { invoice_id: 'big-1', line_items: [item('ann', MAX), item('ann', MAX)] }))
        .status,
    ).toBe(201);
    const invoice = (await call('GET', '/invoices/big-1')).body.data;
    expect(invoice.balances[0].payins.expected).toBe((2n * BigInt(MAX)).toString());
    const beyond = await call('POST', '/invoices', {
      invoice_id: 'big-2',
      line_items: [item('ann', (BigInt(MAX) + 1n).toString())],
    });
    expect([beyond.status, beyond.body.code]).toEqual([400, 'invalid_amount']);
    const product = await call('POST', '/invoices', {
      invoice_id: 'big-3',
      line_items: [item('ann', '0', { price: { unit_price: MAX, quantity: 2 } })],
    });
    expect([product.status, product.body.code]).toEqual([400, 'invalid_amount']);
    expect((await call('GET', '/invoices/big-2')).status).toBe(404);
  });
});

describe('allocations', () => {
  beforeAll(async () => {
    expect((await call('POST', '/invoices', { invoice_id: 'alloc-1', line_items: [item('ann', '1000')] })).status).toBe(
      201,
    );
  });

  it('allow partial payment and refuse more than the transaction, changing nothing', async () => {
    const partial = await sync('part-1', '1000', [allocation('alloc-1', 'ann', '600')]);
    expect(partial.body.data.unallocated_amount).toBe('400');
    const negative = await sync('part-2', '-1000', [allocation('alloc-1', 'ann', '250', 'invoice_payout')]);
    expect(negative.body.data.unallocated_amount).toBe('-750');
    const over = await sync('over-1', '100', [
      allocation('alloc-1', 'ann', '60'),
      allocation('alloc-1', 'new-user', '41'),
    ]);
    expect([over.status, over.body.code]).toEqual([400, 'over_allocated']);
    const unknown = await sync('over-2', '100', [allocation('no-such-invoice', 'ann', '1')]);
    expect([unknown.status, unknown.body.code, unknown.body.details.violations[0].pointer]).toEqual([
      400,
      'unknown_invoice',
      '/body/allocations/0/invoice_id',
    ]);
    const badUser = await sync('over-3', '100', [
      { amount: '1', invoice_id: 'alloc-1', type: 'invoice_payin', user: { id: 'user_01m6dv5an0apf3py6ckxd5cg15' } },
    ]);
    expect([badUser.status, badUser.body.code]).toEqual([400, 'unknown_user']);
    const negativeAllocation = await sync('over-4', '100', [allocation('alloc-1', 'ann', '-1')]);
    expect([negativeAllocation.status, negativeAllocation.body.code]).toEqual([400, 'invalid_amount']);
    const listed = (await call('GET', '/transactions')).body.data.map((t: { external_id: string }) => t.external_id);
    expect(listed).not.toEqual(expect.arrayContaining(['over-1']));
    // The refused sync with a new user created nobody: its external id is still free to appear fresh.
    const balances = (await call('GET', '/invoices/alloc-1')).body.data;
    expect(balances.users.map((user: { id: string }) => user.id)).toEqual(['ann']);
  });

  // sync_transaction writes in one statement: a refusal at any step leaves no bank account or user behind.
  it('create no bank account and no user for a refused sync, whichever check refuses it', async () => {
    const refusals = [
      await sync('gone-1', '10', [allocation('alloc-1', 'gone-user', '11')], { account: { external_id: 'gone-bank' } }),
      await sync('gone-2', '10', [allocation('no-such-invoice', 'gone-user', '1')], {
        account: { external_id: 'gone-bank' },
      }),
      await sync(
        'gone-3',
        '10',
        [
          allocation('alloc-1', 'gone-user', '1'),
          { ...allocation('alloc-1', 'x', '1'), user: { id: 'user_01m6dv5an0apf3py6ckxd5cg15' } },
        ],
        { account: { external_id: 'gone-bank' } },
      ),
    ];
    expect(refusals.map((refusal) => [refusal.status, refusal.body.code])).toEqual([
      [400, 'over_allocated'],
      [400, 'unknown_invoice'],
      [400, 'unknown_user'],
    ]);
    const [left] = await server.db.sql<{ accounts: number; users: number }[]>`
      select (select count(*) from external_accounts where external_id = 'gone-bank')::int as accounts,
             (select count(*) from billing_users where external_id = 'gone-user')::int as users`;
    expect(left).toEqual({ accounts: 0, users: 0 });
  });

  it('refuse an account named by id with another external id, saying which it has', async () => {
    const first = await sync('acct-1', '10', [], { account: { external_id: 'checking' } });
    expect(first.status).toBe(201);
    const mismatch = await sync('acct-2', '10', [], {
      account: { id: first.body.data.account.id, external_id: 'savings' },
    });
    expect([mismatch.status, mismatch.body.code, mismatch.body.details.violations[0].message]).toEqual([
      400,
      'unknown_account',
      `external account ${first.body.data.account.id} has external id checking, not savings`,
    ]);
    const byId = await sync('acct-3', '10', [], { account: { id: first.body.data.account.id } });
    expect([byId.status, byId.body.data.account.external_id]).toEqual([201, 'checking']);
  });

  it('filter transaction lists by account and reconciliation status', async () => {
    expect(
      (await sync('recon-1', '10', [allocation('alloc-1', 'ann', '10')], { account: { external_id: 'savings' } }))
        .status,
    ).toBe(201);
    const savings = (await call('GET', '/transactions?account=savings')).body.data;
    expect(savings.map((t: { external_id: string }) => t.external_id)).toEqual(['recon-1']);
    const byId = (await call(`GET`, `/transactions?account=${savings[0].account.id}&reconciliation_status=reconciled`))
      .body.data;
    expect(byId.map((t: { external_id: string }) => t.external_id)).toEqual(['recon-1']);
    expect((await call('GET', '/transactions?account=savings&reconciliation_status=unreconciled')).body.data).toEqual(
      [],
    );
    expect((await call('GET', '/transactions?account=nowhere')).body.data).toEqual([]);
    const bad = await call('GET', '/transactions?reconciliation_status=partial');
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
  });

  it('makes 20 concurrent syncs of one external id a single transaction', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => sync('race-1', '5', [allocation('alloc-1', 'racer', '5')])),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    const changed = await sync('race-1', '6', [allocation('alloc-1', 'racer', '5')]);
    expect([changed.status, changed.body.code, changed.headers.get('x-should-retry')]).toEqual([
      409,
      'idempotency_key_reused',
      'false',
    ]);
    const found = (
      await call('POST', '/transactions/allocations/search', { filter: { invoice_id: { any: ['alloc-1'] } } })
    ).body.data;
    expect(
      found.filter((a: { transaction: { external_id: string } }) => a.transaction.external_id === 'race-1'),
    ).toHaveLength(1);
  });

  it('makes 20 concurrent creates of one invoice id a single invoice, and refuses another body under that id', async () => {
    const body = { invoice_id: 'race-inv', line_items: [item('ann', '100'), item('ben', '250')] };
    const results = await Promise.all(Array.from({ length: 20 }, () => call('POST', '/invoices', body)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
    const history = (await call('GET', '/invoices/race-inv/history')).body.data;
    expect(history).toHaveLength(1);
    const changed = await call('POST', '/invoices', { ...body, line_items: [item('ann', '101'), item('ben', '250')] });
    expect([changed.status, changed.body.code]).toEqual([409, 'idempotency_key_reused']);
    expect((await call('GET', '/invoices/race-inv')).body.data.balances[0].payins.expected).toBe('350');
  });

  it('keeps workspaces apart', async () => {
    expect((await call('GET', '/invoices/alloc-1', undefined, other)).status).toBe(404);
    const foreign = await call(
      'POST',
      '/transactions',
      {
        account: { external_id: 'bank' },
        allocations: [allocation('alloc-1', 'ann', '1')],
        amount: '1',
        currency: 'USD',
        external_id: 'x-1',
        posted: '2026-11-05T10:00:00Z',
      },
      other,
    );
    expect([foreign.status, foreign.body.code]).toEqual([400, 'unknown_invoice']);
    expect((await call('GET', '/transactions', undefined, other)).body.data).toEqual([]);
  });
});

describe('invoice versions', () => {
  it('let exactly one of 10 concurrent updates on the same version win', async () => {
    expect((await call('POST', '/invoices', { invoice_id: 'occ-1', line_items: [item('ann', '100')] })).status).toBe(
      201,
    );
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        call('PATCH', '/invoices/occ-1', {
          current_invoice_version: 1,
          tags: { set: [{ key: 'writer', value: String(n) }] },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const losers = results.filter((r) => r.status === 409);
    expect(losers).toHaveLength(9);
    expect(
      losers.every(
        (r) =>
          r.body.code === 'version_conflict' &&
          r.body.details.current_version === 2 &&
          r.headers.get('x-should-retry') === 'false',
      ),
    ).toBe(true);
    const invoice = (await call('GET', '/invoices/occ-1')).body.data;
    expect(invoice.version).toBe(2);
    expect(invoice.tags).toEqual([{ key: 'writer', value: results.findIndex((r) => r.status === 200).toString() }]);
  });

  it('let exactly one of 8 concurrent line-item changes on the same version win; the losers leave no user or row', async () => {
    const created = (await call('POST', '/invoices', { invoice_id: 'occ-2', line_items: [item('ann', '100')] })).body
      .data;
    const first = created.line_items[0].id;
    // Each writer reprices the item and adds one for a user of its own, created on first use.
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        call('PATCH', '/invoices/occ-2', {
          current_invoice_version: 1,
          line_items: {
            update: [{ id: first, price: { unit_price: String(200 + n), quantity: 1 } }],
            create: [item(`occ-2-user-${n}`, '10')],
          },
        }),
      ),
    );
    const winner = results.findIndex((r) => r.status === 200);
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(7).fill(409)]);
    expect(results.every((r) => r.status === 200 || r.body.details.current_version === 2)).toBe(true);
    const invoice = (await call('GET', '/invoices/occ-2')).body.data;
    expect([invoice.version, invoice.line_items.map((line: { amount: string }) => line.amount)]).toEqual([
      2,
      [String(200 + winner), '10'],
    ]);
    const users = await server.db.sql<{ external_id: string }[]>`
      select external_id from billing_users where workspace_id = ${acme.workspaceId} and external_id like 'occ-2-user-%'`;
    expect(users.map((user) => user.external_id)).toEqual([`occ-2-user-${winner}`]);
    const history = (await call('GET', '/invoices/occ-2/history')).body.data;
    expect(history.map((version: { version: number }) => version.version)).toEqual([1, 2]);
  });

  it('record one snapshot per version with the cumulative diff of both update forms', async () => {
    const created = (
      await call('POST', '/invoices', { invoice_id: 'hist-1', line_items: [item('ann', '100'), item('ben', '200')] })
    ).body.data;
    const [first, second] = created.line_items.map((line: { id: string }) => line.id);
    const patched = await call('PATCH', '/invoices/hist-1', {
      current_invoice_version: 1,
      line_items: {
        update: [
          { id: first, price: { unit_price: '150', quantity: 2 }, tags: { set: [{ key: 'note', value: 'repriced' }] } },
        ],
        create: [item('cat', '50')],
      },
    });
    expect(patched.status).toBe(200);
    const tagged = await call('PATCH', '/invoices/hist-1', {
      current_invoice_version: 2,
      tags: { create: [{ key: 'k', value: 'v' }] },
    });
    expect(tagged.body.data.version).toBe(3);
    const legacy = await call('POST', '/invoices/hist-1', {
      version: 3,
      line_items_update: [
        { op: 'delete', id: second },
        { op: 'update', id: first, amount: '90' },
      ],
    });
    expect(legacy.status).toBe(200);
    const history = (await call('GET', '/invoices/hist-1/history')).body.data;
    expect(history.map((h: { version: number }) => h.version)).toEqual([1, 2, 3, 4]);
    expect(history[0].diff).toBeUndefined();
    expect(history[1].diff.map((d: { op: string }) => d.op)).toEqual(['update', 'add']);
    expect(history[1].diff[0]).toEqual({ op: 'update', id: first, old_amount: '100', new_amount: '300' });
    expect(history[2].diff).toEqual(history[1].diff);
    expect(history[2].tags).toEqual([{ key: 'k', value: 'v' }]);
    expect(history[3].diff.slice(2)).toEqual([
      { op: 'update', id: first, old_amount: '300', new_amount: '90' },
      { op: 'delete', item: expect.objectContaining({ id: second, amount: '200', user_id: 'ben' }) },
    ]);
    expect(history[3].line_items.map((line: { amount: string; price: unknown }) => [line.amount, line.price])).toEqual([
      ['90', { amount: '90', quantity: 1, unit_price: '90' }],
      ['50', { amount: '50', quantity: 1, unit_price: '50' }],
    ]);
    expect(history[0].line_items.map((line: { amount: string }) => line.amount)).toEqual(['100', '200']);
  });

  it('refuse broken updates and change nothing', async () => {
    expect((await call('POST', '/invoices', { invoice_id: 'bad-1', line_items: [item('ann', '100')] })).status).toBe(
      201,
    );
    const lineId = (await call('GET', '/invoices/bad-1')).body.data.line_items[0].id;
    const cases: [unknown, number, string][] = [
      [
        {
          current_invoice_version: 1,
          line_items: { update: [{ id: lineId, description: 'x' }], delete: [{ id: lineId }] },
        },
        400,
        'invalid_request',
      ],
      [
        {
          current_invoice_version: 1,
          line_items: { update: [{ id: lineId, price: { unit_price: '10', quantity: 2, amount: '21' } }] },
        },
        400,
        'invalid_price',
      ],
      [{ current_invoice_version: 1, tags: { update: [{ key: 'missing', value: 'v' }] } }, 400, 'invalid_request'],
      [
        { current_invoice_version: 1, tags: { set: [{ key: 'a', value: '1' }], delete: [{ key: 'a' }] } },
        400,
        'invalid_request',
      ],
      [
        { current_invoice_version: 1, line_items: { create: [item('ann', '1', { product_id: 'nothing' })] } },
        400,
        'unknown_product',
      ],
      [
        {
          current_invoice_version: 1,
          line_items: { create: [item('ann', '1', { user: { id: 'user_01m6dv5an0apf3py6ckxd5cg15' } })] },
        },
        400,
        'unknown_user',
      ],
      [{ current_invoice_version: 7, tags: { set: [{ key: 'a', value: '1' }] } }, 409, 'version_conflict'],
      [{ current_invoice_version: 1, tags: { set: [{ key: 'a\u0000', value: '1' }] } }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const response = await call('PATCH', '/invoices/bad-1', body);
      expect([response.status, response.body.code]).toEqual([status, code]);
    }
    const after = (await call('GET', '/invoices/bad-1')).body.data;
    expect([after.version, after.tags, after.line_items[0].description]).toEqual([1, [], 'item for ann']);
    expect((await call('GET', '/invoices/bad-1/history')).body.data).toHaveLength(1);
  });
});

// Runs last: every write above named only rows that exist (billing rows have no foreign keys).
describe('after all the writes above', () => {
  it('leaves no billing row naming a missing invoice, product, user, transaction or account', async () => {
    expect(await checkBillingReferences(server.db.sql)).toEqual([]);
  });
});
