import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBillingReferences } from '../../src/db/billingChecks.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Group commit of billing writes: concurrent transaction syncs and invoice creates are written
// together, one statement and one commit per group, yet each request gets the answer it would
// get alone. The same requests are sent concurrently to one workspace and one by one to another;
// the answers must agree, and a refused write must leave nothing behind in either.

let server: TestServer;
let grouped: TestWorkspace;
let alone: TestWorkspace;

// Well-formed ids that name nothing.
const UNKNOWN_USER = `user_${'0'.repeat(26)}`;
const UNKNOWN_BANK = `ext_account_${'0'.repeat(26)}`;
const PRODUCT = { code: 'beans', description: 'Beans', paid_by_roles: [{ name: 'buyer' }] };

beforeAll(async () => {
  // One group in flight: whatever arrives meanwhile forms the next group, so groups form surely.
  server = await startTestServer({ billingGroups: { maxItems: 32, maxInFlight: 1 } });
  grouped = await server.workspace('Grouped');
  alone = await server.workspace('Alone');
  for (const workspace of [grouped, alone]) {
    expect((await call(workspace, 'POST', '/products', PRODUCT)).status).toBe(201);
    expect((await call(workspace, 'POST', '/invoices', invoice('open', 'u0', '1000'))).status).toBe(201);
  }
});
afterAll(() => server?.close());

const call = (workspace: TestWorkspace, method: string, path: string, body?: unknown) =>
  rest(server.baseUrl, method, `/billing${path}`, { token: workspace.token, body });

function invoice(id: string, user: string | { id: string }, price: string, product = 'beans') {
  return {
    invoice_id: id,
    line_items: [
      {
        description: 'Beans',
        product_id: product,
        type: 'payin',
        user: typeof user === 'string' ? { external_id: user } : user,
        currency_code: 'USD',
        price: { unit_price: price, quantity: 1 },
      },
    ],
  };
}

function sync(
  externalId: string,
  options: { bank?: unknown; invoiceId?: string; user?: unknown; amount?: string } = {},
) {
  return {
    account: options.bank ?? { external_id: `bank-${externalId}` },
    amount: '100',
    currency: 'USD',
    external_id: externalId,
    posted: '2026-11-05T10:00:00+05:30',
    allocations: [
      {
        amount: options.amount ?? '40',
        invoice_id: options.invoiceId ?? 'open',
        type: 'invoice_payin',
        user: options.user ?? { external_id: `payer-${externalId}` },
      },
    ],
  };
}

type Write = { path: '/invoices' | '/transactions'; body: unknown };

/** Writes of every outcome, each key used once: the answer alone does not depend on order. */
function mixedWrites(): Write[] {
  const writes: Write[] = [];
  for (let i = 0; i < 8; i++) {
    writes.push({ path: '/transactions', body: sync(`ok-${i}`) });
    writes.push({ path: '/invoices', body: invoice(`inv-${i}`, `buyer-${i}`, String(100 + i)) });
  }
  writes.push(
    { path: '/transactions', body: sync('no-invoice', { invoiceId: 'missing' }) },
    { path: '/transactions', body: sync('no-user', { user: { id: UNKNOWN_USER } }) },
    { path: '/transactions', body: sync('no-bank', { bank: { id: UNKNOWN_BANK } }) },
    { path: '/transactions', body: sync('too-much', { amount: '101' }) },
    { path: '/invoices', body: invoice('inv-no-product', 'buyer-x', '5', 'no-such-product') },
    { path: '/invoices', body: invoice('inv-no-user', { id: UNKNOWN_USER }, '5') },
  );
  return writes;
}

/** What a client can compare across workspaces: status, code, and the data without ids and times. */
function comparable(answer: { status: number; body: any }) {
  if (answer.status >= 400) return { status: answer.status, code: answer.body.code, message: answer.body.message };
  const text = JSON.stringify(answer.body.data, (key, value) =>
    ['id', 'created', 'modified', 'workspace_id', 'workspaceId'].includes(key) || /_id$/.test(key) ? undefined : value,
  );
  return { status: answer.status, data: JSON.parse(text) };
}

const counter = async (name: string, operation: string) => {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(new RegExp(`^${name}\\{operation="${operation}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
};

describe('group commit of billing writes', () => {
  it('answers each concurrent write as it answers the same write alone, in fewer commits', async () => {
    const writes = mixedWrites();
    const groupsBefore = await counter('tally_billing_write_groups_total', 'syncTransaction');
    const writesBefore = await counter('tally_billing_grouped_writes_total', 'syncTransaction');
    const together = await Promise.all(writes.map((write) => call(grouped, 'POST', write.path, write.body)));
    const groups = (await counter('tally_billing_write_groups_total', 'syncTransaction')) - groupsBefore;
    const syncs = writes.filter((write) => write.path === '/transactions').length;
    expect((await counter('tally_billing_grouped_writes_total', 'syncTransaction')) - writesBefore).toBe(syncs);
    expect(groups).toBeLessThan(syncs);

    const oneByOne = [];
    for (const write of writes) oneByOne.push(await call(alone, 'POST', write.path, write.body));
    expect(together.map(comparable)).toEqual(oneByOne.map(comparable));
    expect(together.filter((answer) => answer.status === 201)).toHaveLength(16);
  });

  it('leaves no bank account, user or row of a refused write, in either workspace', async () => {
    for (const workspace of [grouped, alone]) {
      const [counts] = await server.db.sql<
        { accounts: number; users: number; invoices: number; transactions: number }[]
      >`
        select (select count(*)::int from external_accounts where workspace_id = ${workspace.workspaceId}
                  and external_id in ('bank-no-invoice', 'bank-no-user', 'bank-too-much')) as accounts,
               (select count(*)::int from billing_users where workspace_id = ${workspace.workspaceId}
                  and external_id in ('payer-no-invoice', 'payer-no-bank', 'payer-too-much', 'buyer-x')) as users,
               (select count(*)::int from invoices where workspace_id = ${workspace.workspaceId}
                  and id in ('inv-no-product', 'inv-no-user')) as invoices,
               (select count(*)::int from billing_transactions where workspace_id = ${workspace.workspaceId}
                  and external_id in ('no-invoice', 'no-user', 'no-bank', 'too-much')) as transactions`;
      expect(counts).toEqual({ accounts: 0, users: 0, invoices: 0, transactions: 0 });
    }
    expect(await checkBillingReferences(server.db.sql)).toEqual([]);
  });

  it('writes one transaction for concurrent syncs of one external id: the same body replays, another is refused', async () => {
    const same = sync('twin');
    const other = sync('twin', { amount: '41' });
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => call(grouped, 'POST', '/transactions', same)),
      ...Array.from({ length: 5 }, () => call(grouped, 'POST', '/transactions', other)),
    ]);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created).toHaveLength(1);
    const winner = created[0].body.data.allocations[0].amount as string;
    const [withWinningBody, withOtherBody] =
      winner === '40' ? [answers.slice(0, 5), answers.slice(5)] : [answers.slice(5), answers.slice(0, 5)];
    expect(withWinningBody.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(withWinningBody.map((answer) => answer.body.data.id)).size).toBe(1);
    expect(withOtherBody.map((answer) => [answer.status, answer.body.code])).toEqual(
      Array(5).fill([409, 'idempotency_key_reused']),
    );
  });

  it('writes one invoice for concurrent creates of one invoice id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call(grouped, 'POST', '/invoices', invoice('inv-twin', 'buyer-twin', '7'))),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const [count] = await server.db.sql<{ n: number }[]>`
      select count(*)::int as n from invoice_line_items where workspace_id = ${grouped.workspaceId} and invoice_id = 'inv-twin'`;
    expect(count.n).toBe(1);
  });
});
