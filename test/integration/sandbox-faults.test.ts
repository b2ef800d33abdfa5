import { describe, expect, it } from 'vitest';
import { coffeeProduct } from '../support/billingFixtures.js';
import { gql } from '../support/graphql.js';
import { rest } from '../support/rest.js';
import { sandboxServerForFile, type SandboxWorkspace } from '../support/sandbox.js';
import { startTestServer } from '../support/server.js';

// Injected faults: rules of one workspace make its requests fail with a typed error, wait, or
// lose their connection before the work or after the commit; a header does the same for one
// request. Nothing of it reaches another workspace, or a server without the sandbox.

const sandbox = sandboxServerForFile();

const addRule = async (workspace: SandboxWorkspace, rule: unknown) => {
  const added = await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/faults`, rule);
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return added.body.data;
};
const rules = async (workspace: SandboxWorkspace) =>
  (await sandbox.admin.call('GET', `/workspaces/${workspace.workspaceId}/faults`)).body.data;

const invoice = (id: string) => ({
  invoice_id: id,
  line_items: [
    {
      description: 'beans',
      product_id: 'coffee',
      type: 'payin',
      user: { external_id: 'ann' },
      currency_code: 'USD',
      price: { amount: '100' },
    },
  ],
});

async function billingWorkspace() {
  const workspace = await sandbox.admin.workspace();
  expect(
    (await rest(sandbox.server.baseUrl, 'POST', '/billing/products', { token: workspace.token, body: coffeeProduct }))
      .status,
  ).toBe(201);
  return workspace;
}

/** A request whose connection the server may drop: resolves to the answer's status, or to 'dropped'. */
async function sendRaw(
  workspace: SandboxWorkspace,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  try {
    const response = await fetch(`${sandbox.server.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${workspace.token}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  } catch (error) {
    expect(String((error as Error).cause ?? error)).toMatch(/socket|closed|reset|terminated|ECONNRESET/i);
    return 'dropped' as const;
  }
}

describe('fault rules over REST', () => {
  it('answers a typed error with its status and Retry-After, writes nothing, and is spent after its count', async () => {
    const workspace = await billingWorkspace();
    const rule = await addRule(workspace, {
      operation: 'createInvoice',
      fault: { type: 'error', code: 'too_many_requests', retry_after_seconds: 7 },
      count: 2,
    });
    expect(rule).toMatchObject({ operation: 'createInvoice', count: 2, probability: 1, matched: 0 });
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await sendRaw(workspace, 'POST', '/billing/invoices', invoice('inv-1'));
      if (refused === 'dropped') throw new Error('dropped');
      expect([refused.status, refused.body.code, refused.body.retryable]).toEqual([429, 'too_many_requests', true]);
      expect(refused.headers.get('retry-after')).toBe('7');
    }
    expect(
      (await rest(sandbox.server.baseUrl, 'GET', '/billing/invoices/inv-1', { token: workspace.token })).status,
    ).toBe(404);
    expect(await rules(workspace)).toEqual([]);
    expect(
      (
        await rest(sandbox.server.baseUrl, 'POST', '/billing/invoices', {
          token: workspace.token,
          body: invoice('inv-1'),
        })
      ).status,
    ).toBe(201);
  });

  it('matches only its operation; `*` matches every one; a client error code answers with its own status', async () => {
    const workspace = await billingWorkspace();
    await addRule(workspace, { operation: 'getProduct', fault: { type: 'error', code: 'product_not_found' } });
    const listed = await rest(sandbox.server.baseUrl, 'GET', '/billing/products', { token: workspace.token });
    expect(listed.status).toBe(200);
    const refused = await rest(sandbox.server.baseUrl, 'GET', '/billing/products/coffee', { token: workspace.token });
    expect([refused.status, refused.body.code]).toEqual([404, 'product_not_found']);
    await sandbox.admin.call('DELETE', `/workspaces/${workspace.workspaceId}/faults`);
    await addRule(workspace, { operation: '*', fault: { type: 'error', code: 'internal_error' } });
    const internal = await rest(sandbox.server.baseUrl, 'GET', '/billing/products', { token: workspace.token });
    expect([internal.status, internal.body.code, internal.body.retryable]).toEqual([500, 'internal_error', true]);
    expect((await rules(workspace))[0].matched).toBe(1);
  });

  it('adds latency, then runs the request', async () => {
    const workspace = await billingWorkspace();
    await addRule(workspace, { operation: 'createInvoice', fault: { type: 'latency', ms: 400 }, count: 1 });
    const started = performance.now();
    const created = await rest(sandbox.server.baseUrl, 'POST', '/billing/invoices', {
      token: workspace.token,
      body: invoice('slow'),
    });
    expect(created.status).toBe(201);
    expect(performance.now() - started).toBeGreaterThanOrEqual(395);
  });

  it('drops the connection before the work (nothing written) or after the commit (written, answer lost)', async () => {
    const workspace = await billingWorkspace();
    await addRule(workspace, { operation: 'createInvoice', fault: { type: 'drop', when: 'before' }, count: 1 });
    expect(await sendRaw(workspace, 'POST', '/billing/invoices', invoice('before'))).toBe('dropped');
    expect(
      (await rest(sandbox.server.baseUrl, 'GET', '/billing/invoices/before', { token: workspace.token })).status,
    ).toBe(404);

    await addRule(workspace, { operation: 'createInvoice', fault: { type: 'drop', when: 'after_commit' }, count: 1 });
    expect(await sendRaw(workspace, 'POST', '/billing/invoices', invoice('after'))).toBe('dropped');
    const written = await rest(sandbox.server.baseUrl, 'GET', '/billing/invoices/after', { token: workspace.token });
    expect([written.status, written.body.data.version]).toEqual([200, 1]);
    // The client's retry with the same invoice id is answered from what was committed.
    const retried = await rest(sandbox.server.baseUrl, 'POST', '/billing/invoices', {
      token: workspace.token,
      body: invoice('after'),
    });
    expect([retried.status, retried.body.data.id, retried.body.data.version]).toEqual([200, 'after', 1]);
  });

  it('applies a rule with the probability it states', async () => {
    const workspace = await billingWorkspace();
    await addRule(workspace, {
      operation: 'getProduct',
      fault: { type: 'error', code: 'service_unavailable' },
      probability: 0.5,
    });
    let failed = 0;
    for (let i = 0; i < 200; i++) {
      const answer = await rest(sandbox.server.baseUrl, 'GET', '/billing/products/coffee', { token: workspace.token });
      if (answer.status === 503) failed++;
      else expect(answer.status).toBe(200);
    }
    // Binomial(200, 0.5): outside 60..140 once in about 10^8 runs.
    expect(failed).toBeGreaterThan(60);
    expect(failed).toBeLessThan(140);
    expect((await rules(workspace))[0].matched).toBe(failed);
  });
});

describe('fault rules over GraphQL', () => {
  const POST = `mutation($ik: SafeString!) { addLedgerEntry(ik: $ik, entry: { ledger: { ik: "books" }, lines: [
    { account: { path: "bank" }, amount: "1" }, { account: { path: "owed" }, amount: "1" }] }) {
    __typename ... on AddLedgerEntryResult { isIkReplay entry { id } } ... on Error { code retryable } } }`;

  async function ledgerWorkspace() {
    const workspace = await sandbox.admin.workspace();
    const created = await gql(
      sandbox.server.baseUrl,
      workspace.token,
      `mutation { createLedger(ik: "books", ledger: { name: "Books" }) { __typename }
        createLedgerAccounts(ledger: { ik: "books" }, ledgerAccounts: [
          { ik: "bank", name: "Bank", type: asset }, { ik: "owed", name: "Owed", type: liability }]) { __typename } }`,
    );
    expect(created.body.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
    return workspace;
  }
  const entries = async (workspace: SandboxWorkspace) =>
    (
      await gql(
        sandbox.server.baseUrl,
        workspace.token,
        '{ ledger(ledger: { ik: "books" }) { ledgerEntries { nodes { id } } } }',
      )
    ).body.data.ledger.ledgerEntries.nodes.length;

  it("answers a mutation's InternalError or BadRequestError member for in-band codes, writing nothing", async () => {
    const workspace = await ledgerWorkspace();
    await addRule(workspace, {
      operation: 'addLedgerEntry',
      fault: { type: 'error', code: 'internal_error' },
      count: 1,
    });
    await addRule(workspace, {
      operation: 'addLedgerEntry',
      fault: { type: 'error', code: 'entry_unbalanced' },
      count: 1,
    });
    const internal = await gql(sandbox.server.baseUrl, workspace.token, POST, { ik: 'e1' });
    expect(internal.status).toBe(200);
    expect(internal.body.data.addLedgerEntry).toEqual({
      __typename: 'InternalError',
      code: 'internal_error',
      retryable: true,
    });
    const bad = await gql(sandbox.server.baseUrl, workspace.token, POST, { ik: 'e1' });
    expect(bad.body.data.addLedgerEntry).toEqual({
      __typename: 'BadRequestError',
      code: 'entry_unbalanced',
      retryable: false,
    });
    expect(await entries(workspace)).toBe(0);
    const posted = await gql(sandbox.server.baseUrl, workspace.token, POST, { ik: 'e1' });
    expect(posted.body.data.addLedgerEntry).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: false });
  });

  it('fails a query field with its code, and answers overload codes at the HTTP level', async () => {
    const workspace = await ledgerWorkspace();
    await addRule(workspace, { operation: 'ledger', fault: { type: 'error', code: 'ledger_not_found' }, count: 1 });
    const failed = await gql(
      sandbox.server.baseUrl,
      workspace.token,
      '{ ledger(ledger: { ik: "books" }) { name } ledgers { nodes { name } } }',
    );
    expect(failed.body.errors?.map((error: any) => [error.path, error.extensions.code])).toEqual([
      [['ledger'], 'ledger_not_found'],
    ]);
    expect(failed.body.data.ledgers.nodes).toEqual([{ name: 'Books' }]);

    await addRule(workspace, {
      operation: '*',
      fault: { type: 'error', code: 'service_unavailable', retry_after_seconds: 3 },
      count: 1,
    });
    const unavailable = await fetch(`${sandbox.server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${workspace.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ ledgers { nodes { name } } }' }),
    });
    expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, '3']);
    expect((await unavailable.json()).errors[0].extensions).toMatchObject({
      code: 'service_unavailable',
      retryable: true,
    });
  });

  it('drops an addLedgerEntry after its commit: the retry with the same ik replays the one entry', async () => {
    const workspace = await ledgerWorkspace();
    await addRule(workspace, { operation: 'addLedgerEntry', fault: { type: 'drop', when: 'after_commit' }, count: 1 });
    expect(await sendRaw(workspace, 'POST', '/graphql', { query: POST, variables: { ik: 'lost' } })).toBe('dropped');
    const retried = await gql(sandbox.server.baseUrl, workspace.token, POST, { ik: 'lost' });
    expect(retried.body.data.addLedgerEntry).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: true });
    expect(await entries(workspace)).toBe(1);
  });
});

describe('the X-Tally-Fault header', () => {
  it("applies to its one request, before the workspace's rules", async () => {
    const workspace = await billingWorkspace();
    await addRule(workspace, { operation: 'getProduct', fault: { type: 'error', code: 'internal_error' } });
    const header = { 'x-tally-fault': JSON.stringify({ type: 'error', code: 'too_many_requests' }) };
    const limited = await sendRaw(workspace, 'GET', '/billing/products/coffee', undefined, header);
    expect(limited !== 'dropped' && [limited.status, limited.headers.get('retry-after')]).toEqual([429, '1']);
    const dropped = await sendRaw(workspace, 'POST', '/billing/invoices', invoice('h1'), {
      'x-tally-fault': '{"type":"drop","when":"after_commit"}',
    });
    expect(dropped).toBe('dropped');
    expect((await rest(sandbox.server.baseUrl, 'GET', '/billing/invoices/h1', { token: workspace.token })).status).toBe(
      200,
    );
    expect((await rules(workspace))[0].matched).toBe(0);
  });

  it('refuses a header that is not a Fault with 400 invalid_request, and runs nothing', async () => {
    const workspace = await billingWorkspace();
    for (const value of [
      'nope',
      '{}',
      '{"type":"latency","ms":0}',
      '{"type":"error","code":"teapot"}',
      '{"type":"drop","when":"later"}',
      '{"type":"error","code":"constructor"}',
      '{"type":"error","code":"__proto__"}',
    ]) {
      const refused = await sendRaw(workspace, 'POST', '/billing/invoices', invoice('x'), { 'x-tally-fault': value });
      if (refused === 'dropped') throw new Error(value);
      expect([refused.status, refused.body.code], value).toEqual([400, 'invalid_request']);
      expect(refused.body.details.violations[0].pointer).toMatch(/^\/header\/x-tally-fault/);
    }
    expect((await rest(sandbox.server.baseUrl, 'GET', '/billing/invoices/x', { token: workspace.token })).status).toBe(
      404,
    );
  });

  it('is ignored by a server without the sandbox', async () => {
    const plain = await startTestServer();
    try {
      const workspace = await plain.workspace();
      const answer = await fetch(`${plain.baseUrl}/billing/products`, {
        headers: {
          authorization: `Bearer ${workspace.token}`,
          'x-tally-fault': '{"type":"error","code":"internal_error"}',
        },
      });
      expect(answer.status).toBe(200);
    } finally {
      await plain.close();
    }
  });
});

describe('managing rules', () => {
  it('lists rules in order, deletes one or all, and refuses malformed rules and unknown ids', async () => {
    const workspace = await billingWorkspace();
    const first = await addRule(workspace, { operation: 'getProduct', fault: { type: 'latency', ms: 5 } });
    const second = await addRule(workspace, {
      operation: 'createInvoice',
      fault: { type: 'drop', when: 'before' },
      count: 3,
    });
    expect((await rules(workspace)).map((rule: any) => rule.id)).toEqual([first.id, second.id]);
    const removed = await sandbox.admin.call('DELETE', `/workspaces/${workspace.workspaceId}/faults/${first.id}`);
    expect(removed.body.data.id).toBe(first.id);
    const missing = await sandbox.admin.call('DELETE', `/workspaces/${workspace.workspaceId}/faults/${first.id}`);
    expect([missing.status, missing.body.code]).toEqual([404, 'fault_not_found']);
    for (const rule of [
      { operation: 'getProduct' },
      { operation: 'get product', fault: { type: 'latency', ms: 5 } },
      { operation: 'getProduct', fault: { type: 'latency', ms: 60001 } },
      { operation: 'getProduct', fault: { type: 'error', code: 'teapot' } },
      { operation: 'getProduct', fault: { type: 'error', code: 'constructor' } },
      { operation: 'getProduct', fault: { type: 'latency', ms: 5 }, probability: 0 },
      { operation: 'getProduct', fault: { type: 'latency', ms: 5 }, count: 0 },
      { operation: 'getProduct', fault: { type: 'latency', ms: 5, extra: 1 } },
    ]) {
      const refused = await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/faults`, rule);
      expect([refused.status, refused.body.code], JSON.stringify(rule)).toEqual([400, 'invalid_request']);
    }
    expect(await rules(workspace)).toHaveLength(1);
    expect((await sandbox.admin.call('DELETE', `/workspaces/${workspace.workspaceId}/faults`)).body.data).toEqual([]);
    expect(await rules(workspace)).toEqual([]);
  });

  it("never touches another workspace's requests, even while both run at once", async () => {
    const [faulty, healthy] = [await billingWorkspace(), await billingWorkspace()];
    await addRule(faulty, { operation: '*', fault: { type: 'error', code: 'service_unavailable' } });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        rest(sandbox.server.baseUrl, 'GET', '/billing/products/coffee', { token: (i % 2 ? faulty : healthy).token }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 ? 503 : 200)));
  });
});
