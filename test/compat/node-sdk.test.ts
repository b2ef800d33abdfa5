import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// The official FRAGMENT Node SDK, unmodified, pointed at Tally: its own token request, its own
// documents, its own response handling. If Tally drifts from the wire contract, this fails.

const require = createRequire(import.meta.url);
const { createFragmentClient, BadRequestError } = require('@fragment-dev/node-client') as typeof import('@fragment-dev/node-client');
const { LedgerAccountTypes } = require('@fragment-dev/node-client/types') as typeof import('@fragment-dev/node-client/types');

let server: TestServer;
let workspace: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('SDK workspace');
});
afterAll(() => server?.close());

function sdkClient() {
  return createFragmentClient({
    params: {
      clientId: workspace.clientId,
      clientSecret: workspace.clientSecret,
      apiUrl: `${server.baseUrl}/graphql`,
      authUrl: `${server.baseUrl}/oauth2/token`,
      scope: `${server.baseUrl}/*`,
    },
    retryConfig: { retries: 0 },
  });
}

describe('@fragment-dev/node-client 1.4.0 against Tally', () => {
  it('stores a schema, then creates, reads, renames and deletes a ledger, and reads the workspace', async () => {
    const client = sdkClient();
    const stored = await client.storeSchema({
      schema: {
        key: 'sdk-schema',
        chartOfAccounts: {
          accounts: [{ key: 'assets', type: LedgerAccountTypes.Asset }, { key: 'liabilities', type: LedgerAccountTypes.Liability }],
        },
      },
    });
    expect(stored.storeSchema).toMatchObject({ __typename: 'StoreSchemaResult', schema: { key: 'sdk-schema', version: { version: 1 } } });

    const created = await client.createLedger({ ik: 'sdk-ledger', ledger: { name: 'SDK ledger' }, schemaKey: 'sdk-schema' });
    expect(created.createLedger).toMatchObject({
      __typename: 'CreateLedgerResult', isIkReplay: false,
      ledger: { ik: 'sdk-ledger', name: 'SDK ledger', schema: { key: 'sdk-schema' } },
    });

    const fetched = await client.getLedger({ ik: 'sdk-ledger' });
    expect(fetched.ledger).toMatchObject({ ik: 'sdk-ledger', name: 'SDK ledger', balanceUTCOffset: '+00:00' });

    const updated = await client.updateLedger({ ledgerIk: 'sdk-ledger', update: { name: 'Renamed by SDK' } });
    expect(updated.updateLedger).toMatchObject({ __typename: 'UpdateLedgerResult', ledger: { name: 'Renamed by SDK' } });

    const ws = await client.getWorkspace();
    expect(ws.workspace).toEqual({ id: workspace.workspaceId, name: 'SDK workspace' });

    const deleted = await client.deleteLedger({ ledger: { ik: 'sdk-ledger' } });
    expect(deleted.deleteLedger).toEqual({ __typename: 'DeleteLedgerResult', success: true });
    expect((await client.getLedger({ ik: 'sdk-ledger' })).ledger).toBeNull();
  });

  it('surfaces a typed BadRequestError with our catalogue code', async () => {
    const client = sdkClient();
    await client.createLedger({ ik: 'sdk-conflict', ledger: { name: 'First' }, schemaKey: 'sdk-schema' });
    const failure = client.createLedger({ ik: 'sdk-conflict', ledger: { name: 'Second' }, schemaKey: 'sdk-schema' });
    await expect(failure).rejects.toBeInstanceOf(BadRequestError);
    await expect(failure).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('re-reads a stored schema by version', async () => {
    const schema = await sdkClient().getSchema({ key: 'sdk-schema', version: 1 });
    expect(schema.schema).toMatchObject({ key: 'sdk-schema', name: 'sdk-schema', version: { version: 1 } });
  });

  it('lists the accounts of a ledger, page by page', async () => {
    await gql(server.baseUrl, workspace.token, 'mutation { createLedger(ik: "sdk-accounts", ledger: { name: "Accounts" }) { __typename } }');
    await gql(server.baseUrl, workspace.token, `mutation { createLedgerAccounts(ledger: { ik: "sdk-accounts" }, ledgerAccounts: [
      { ik: "bank", name: "Bank", type: asset, childLedgerAccounts: [{ ik: "operating", name: "Operating" }] },
      { ik: "revenue", name: "Revenue", type: income }]) { __typename } }`);
    const client = sdkClient();
    const first = await client.listLedgerAccounts({ ledgerIk: 'sdk-accounts', first: 2 });
    expect(first.ledger?.ledgerAccounts.nodes.map((node) => [node.path, node.type])).toEqual([['revenue', 'income'], ['bank/operating', 'asset']]);
    expect(first.ledger?.ledgerAccounts.pageInfo.hasNextPage).toBe(true);
    const next = await client.listLedgerAccounts({ ledgerIk: 'sdk-accounts', first: 2, after: first.ledger!.ledgerAccounts.pageInfo.endCursor! });
    expect(next.ledger?.ledgerAccounts.nodes.map((node) => node.path)).toEqual(['bank']);
    expect(next.ledger?.ledgerAccounts.pageInfo.hasNextPage).toBe(false);
  });
});
