import { describe, expect, it } from 'vitest';
import { readWorkspaceTables } from '../../src/db/sandbox/workspaceTables.js';
import { coffeeProduct } from '../support/billingFixtures.js';
import { gql } from '../support/graphql.js';
import { rest } from '../support/rest.js';
import { sandboxAdmin, type SandboxWorkspace, sandboxServerForFile } from '../support/sandbox.js';
import { ADMIN_TOKEN, startTestServer } from '../support/server.js';

// The sandbox admin API's workspaces: made with a working client in one call, listed, reset to
// empty with clients kept, deleted with everything they hold; the admin token guards every route,
// and a server without the sandbox has none of them.

const sandbox = sandboxServerForFile();

/** A ledger with one entry and a billing product: data in both APIs' tables. */
async function seed(workspace: SandboxWorkspace) {
  const post = await gql(
    sandbox.server.baseUrl,
    workspace.token,
    `mutation {
      createLedger(ik: "main", ledger: { name: "Main" }) { __typename }
      createLedgerAccounts(ledger: { ik: "main" }, ledgerAccounts: [
        { ik: "bank", name: "Bank", type: asset }, { ik: "owed", name: "Owed", type: liability }]) { __typename }
      addLedgerEntry(ik: "e1", entry: { ledger: { ik: "main" }, lines: [
        { account: { path: "bank" }, amount: "5" }, { account: { path: "owed" }, amount: "5" }] }) { __typename }
    }`,
  );
  expect(post.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
  const product = await rest(sandbox.server.baseUrl, 'POST', '/billing/products', {
    token: workspace.token,
    body: coffeeProduct,
  });
  expect(product.status).toBe(201);
}

/** Rows the workspace holds in every table of its data, and its clients and snapshots, once the fold is idle. */
async function rowsOf(workspaceId: string) {
  await foldedAll();
  const { tables } = await readWorkspaceTables(sandbox.server.db.sql);
  let data = 0;
  for (const table of tables) {
    const [{ count }] = await sandbox.server.db.sql<{ count: number }[]>`
      select count(*)::int as count from ${sandbox.server.db.sql(table.name)} where workspace_id = ${workspaceId}`;
    data += count;
  }
  const [{ clients, snapshots }] = await sandbox.server.db.sql<{ clients: number; snapshots: number }[]>`
    select (select count(*) from api_clients where workspace_id = ${workspaceId})::int as clients,
           (select count(*) from sandbox_snapshots where workspace_id = ${workspaceId})::int as snapshots`;
  return { data, clients, snapshots };
}

/** Waits until the balance fold has taken every queued delta (it moves rows from the queue to the buckets). */
async function foldedAll() {
  for (;;) {
    const [{ pending }] = await sandbox.server.db.sql<
      { pending: number }[]
    >`select count(*)::int as pending from ledger_balance_queue`;
    if (pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const ledgerNames = async (workspace: SandboxWorkspace) =>
  (await gql(sandbox.server.baseUrl, workspace.token, '{ ledgers { nodes { name } } }')).body.data.ledgers.nodes;

describe('creating workspaces', () => {
  it('answers a workspace and a client whose credentials get a token that works on both APIs', async () => {
    const created = await sandbox.admin.call('POST', '/workspaces', { name: 'checkout tests' });
    expect(created.status).toBe(201);
    const { workspace, client } = created.body.data;
    expect(workspace).toMatchObject({ name: 'checkout tests', id: expect.stringMatching(/^ws_/) });
    expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const token = await fetch(`${sandbox.server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    }).then((response) => response.json());
    const ledgers = await gql(sandbox.server.baseUrl, token.access_token, '{ ledgers { nodes { id } } }');
    expect(ledgers.body.data.ledgers.nodes).toEqual([]);
    const products = await rest(sandbox.server.baseUrl, 'GET', '/billing/products', { token: token.access_token });
    expect(products.status).toBe(200);
    expect((await sandbox.admin.call('GET', `/workspaces/${workspace.id}`)).body.data).toEqual(workspace);
    const listed = await sandbox.admin.call('GET', '/workspaces');
    expect(listed.body.data).toContainEqual(workspace);
  });

  it('names a workspace `Sandbox workspace` when no name is sent, and refuses bodies outside the contract', async () => {
    const unnamed = await sandbox.admin.call('POST', '/workspaces');
    expect(unnamed.body.data.workspace.name).toBe('Sandbox workspace');
    const before = (await sandbox.admin.call('GET', '/workspaces')).body.data.length;
    for (const body of [{ name: '' }, { name: 'x'.repeat(201) }, { name: 7 }, { nickname: 'x' }, ['x']]) {
      const refused = await sandbox.admin.call('POST', '/workspaces', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('invalid_request');
      expect(refused.body.details.violations[0].pointer).toMatch(/^\/body/);
    }
    const nul = await sandbox.admin.call('POST', '/workspaces', { name: 'a\u0000b' });
    expect([nul.status, nul.body.code]).toEqual([400, 'invalid_request']);
    expect((await sandbox.admin.call('GET', '/workspaces')).body.data).toHaveLength(before);
  });
});

describe('the admin token', () => {
  it('is required on every route; a missing, wrong or API-client token is 401 and changes nothing', async () => {
    const workspace = await sandbox.admin.workspace();
    const before = (await sandbox.admin.call('GET', '/workspaces')).body.data.length;
    const refusals = [
      sandboxAdmin(sandbox.server.baseUrl, 'not-the-admin-token'),
      sandboxAdmin(sandbox.server.baseUrl, workspace.token),
    ];
    const routes: [string, string, unknown?][] = [
      ['POST', '/workspaces', { name: 'x' }],
      ['GET', '/workspaces'],
      ['DELETE', `/workspaces/${workspace.workspaceId}`],
      ['POST', `/workspaces/${workspace.workspaceId}/reset`],
      ['POST', `/workspaces/${workspace.workspaceId}/snapshots`, { name: 's' }],
    ];
    for (const caller of refusals) {
      for (const [method, route, body] of routes) {
        const refused = await caller.call(method, route, body);
        expect([refused.status, refused.body.code], `${method} ${route}`).toEqual([401, 'unauthorized']);
        expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      }
    }
    const bare = await fetch(`${sandbox.server.baseUrl}/sandbox/workspaces`);
    expect(bare.status).toBe(401);
    expect((await sandbox.admin.call('GET', '/workspaces')).body.data).toHaveLength(before);
    expect(await ledgerNames(workspace)).toEqual([]);
  });

  it('is not an API token: it opens neither the ledger nor the billing API', async () => {
    expect((await gql(sandbox.server.baseUrl, ADMIN_TOKEN, '{ ledgers { nodes { id } } }')).status).toBe(401);
    expect((await rest(sandbox.server.baseUrl, 'GET', '/billing/products', { token: ADMIN_TOKEN })).status).toBe(401);
  });
});

describe('resetting a workspace', () => {
  it('deletes all its data, keeps its clients (the same token works) and leaves other workspaces alone', async () => {
    const [target, bystander] = [await sandbox.admin.workspace('target'), await sandbox.admin.workspace('bystander')];
    await seed(target);
    await seed(bystander);
    const bystanderRows = await rowsOf(bystander.workspaceId);
    expect((await rowsOf(target.workspaceId)).data).toBeGreaterThan(10);

    const reset = await sandbox.admin.call('POST', `/workspaces/${target.workspaceId}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body.data.id).toBe(target.workspaceId);
    expect(await rowsOf(target.workspaceId)).toEqual({ data: 0, clients: 1, snapshots: 0 });
    expect(await ledgerNames(target)).toEqual([]);
    expect(await rowsOf(bystander.workspaceId)).toEqual(bystanderRows);
    expect(await ledgerNames(bystander)).toEqual([{ name: 'Main' }]);

    // The emptied workspace takes the same writes again: the iks and codes are free.
    await seed(target);
    expect(await ledgerNames(target)).toEqual([{ name: 'Main' }]);
  });
});

describe('deleting a workspace', () => {
  it('removes every row it holds, clients and snapshots included; its tokens and credentials stop working at once', async () => {
    const [doomed, bystander] = [await sandbox.admin.workspace('doomed'), await sandbox.admin.workspace('bystander')];
    await seed(doomed);
    await seed(bystander);
    expect(
      (await sandbox.admin.call('POST', `/workspaces/${doomed.workspaceId}/snapshots`, { name: 'kept' })).status,
    ).toBe(201);
    const bystanderRows = await rowsOf(bystander.workspaceId);

    const deleted = await sandbox.admin.call('DELETE', `/workspaces/${doomed.workspaceId}`);
    expect(deleted.body).toEqual({ data: { id: doomed.workspaceId, deleted: true } });
    expect(await rowsOf(doomed.workspaceId)).toEqual({ data: 0, clients: 0, snapshots: 0 });
    const [{ shadowRows }] = await sandbox.server.db.sql<{ shadowRows: number }[]>`
      select count(*)::int as "shadowRows" from tally_snapshots.ledger_entries where workspace_id = ${doomed.workspaceId}`;
    expect(shadowRows).toBe(0);
    expect(await rowsOf(bystander.workspaceId)).toEqual(bystanderRows);

    const read = await gql(sandbox.server.baseUrl, doomed.token, '{ ledgers { nodes { id } } }');
    expect(read.status).toBe(401);
    const write = await rest(sandbox.server.baseUrl, 'POST', '/billing/products', {
      token: doomed.token,
      body: coffeeProduct,
    });
    expect([write.status, write.body.code]).toEqual([401, 'unauthorized']);
    const token = await fetch(`${sandbox.server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${doomed.clientId}:${doomed.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(token.status).toBe(401);
    expect(await ledgerNames(bystander)).toEqual([{ name: 'Main' }]);
  });

  it('answers 404 workspace_not_found for an id that never existed or is gone, on every route', async () => {
    const gone = await sandbox.admin.workspace();
    await sandbox.admin.call('DELETE', `/workspaces/${gone.workspaceId}`);
    for (const id of [gone.workspaceId, 'ws_00000000000000000000000000', "ws_'; drop table workspaces; --", 'ü']) {
      const path = `/workspaces/${encodeURIComponent(id)}`;
      for (const [method, route, body] of [
        ['GET', path],
        ['DELETE', path],
        ['POST', `${path}/reset`],
        ['GET', `${path}/snapshots`],
        ['POST', `${path}/snapshots`, { name: 's1' }],
        ['POST', `${path}/snapshots/s1/restore`],
        ['DELETE', `${path}/snapshots/s1`],
      ] as [string, string, unknown?][]) {
        const refused = await sandbox.admin.call(method, route, body);
        expect([refused.status, refused.body.code], `${method} ${route}`).toEqual([404, 'workspace_not_found']);
      }
    }
    const tooLong = await sandbox.admin.call('GET', `/workspaces/${'w'.repeat(65)}`);
    expect([tooLong.status, tooLong.body.code]).toEqual([400, 'invalid_request']);
  });
});

describe('a server without the sandbox', () => {
  it('has no /sandbox routes and no sandbox contract', async () => {
    const plain = await startTestServer();
    try {
      const refused = await sandboxAdmin(plain.baseUrl).call('POST', '/workspaces', { name: 'x' });
      expect([refused.status, refused.body.code]).toEqual([404, 'route_not_found']);
      expect((await fetch(`${plain.baseUrl}/sandbox/openapi.yaml`)).status).toBe(404);
      expect(await (await fetch(`${plain.baseUrl}/docs`)).text()).not.toContain('sandbox');
    } finally {
      await plain.close();
    }
  });

  it('serves the sandbox contract, and lists it in /docs, when the sandbox is on', async () => {
    const contract = await fetch(`${sandbox.server.baseUrl}/sandbox/openapi.yaml`);
    expect(contract.status).toBe(200);
    expect(await contract.text()).toContain(`default: ${sandbox.server.baseUrl}\n`);
    expect(await (await fetch(`${sandbox.server.baseUrl}/docs`)).text()).toContain('/sandbox/openapi.yaml');
  });
});
