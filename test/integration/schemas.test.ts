import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

const STORE = `mutation($schema: SchemaInput!) {
  storeSchema(schema: $schema) {
    __typename
    ... on StoreSchemaResult { schema { key name version { version json } versions { nodes { version } } } }
    ... on BadRequestError { code message }
  }
}`;
const CREATE = `mutation($ik: SafeString!, $schema: SchemaMatchInput) {
  createLedger(ik: $ik, ledger: { name: "L" }, schema: $schema) {
    __typename ... on CreateLedgerResult { ledger { schema { key version { version } } } } ... on BadRequestError { code }
  }
}`;

const chart = (...keys: string[]) => ({ accounts: keys.map((key) => ({ key, type: 'asset' })) });

let server: TestServer;
let workspace: TestWorkspace;
beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('Schemas');
});
afterAll(() => server?.close());

const store = async (schema: Record<string, unknown>) =>
  (await gql(server.baseUrl, workspace.token, STORE, { schema })).body.data.storeSchema;

describe('storeSchema', () => {
  it('adds a version only when the content changes, and keeps every version readable', async () => {
    const first = await store({ key: 'shop', chartOfAccounts: chart('cash') });
    expect(first.schema).toMatchObject({ key: 'shop', name: 'shop', version: { version: 1 } });
    const same = await store({ key: 'shop', chartOfAccounts: chart('cash') });
    expect(same.schema.versions.nodes).toEqual([{ version: 1 }]);
    const grown = await store({ key: 'shop', name: 'Shop', chartOfAccounts: chart('cash', 'bank') });
    expect(grown.schema).toMatchObject({ name: 'Shop', version: { version: 2 }, versions: { nodes: [{ version: 2 }, { version: 1 }] } });
    expect(grown.schema.version.json.chartOfAccounts.accounts.map((a: { key: string }) => a.key)).toEqual(['cash', 'bank']);
    const v1 = await gql(server.baseUrl, workspace.token, '{ schema(schema: { key: "shop", version: 1 }) { version { version json } } }');
    expect(v1.body.data.schema.version.json.chartOfAccounts.accounts).toHaveLength(1);
  });

  it.each<[string, { key: string } & Record<string, unknown>, string?]>([
    ['an account removed from a stored schema', { key: 'shop', chartOfAccounts: chart('cash') }, 'schema_change_incompatible'],
    ['an account whose type changed', { key: 'shop', chartOfAccounts: { accounts: [{ key: 'cash', type: 'asset' }, { key: 'bank', type: 'liability' }] } }, 'schema_change_incompatible'],
    ['an account whose currency changed', { key: 'shop', chartOfAccounts: { accounts: [{ key: 'cash', type: 'asset' }, { key: 'bank', type: 'asset', currency: { code: 'EUR' } }] } }, 'schema_change_incompatible'],
    ['an entry line on an account the chart lacks', { key: 'lines', chartOfAccounts: chart('cash'), ledgerEntries: { types: [{ type: 't', lines: [{ key: 'a', account: { path: 'bank' }, amount: '{{x}}' }] }] } }],
    ['an amount with an operator schemas do not allow', { key: 'lines', chartOfAccounts: chart('cash'), ledgerEntries: { types: [{ type: 't', lines: [{ key: 'a', account: { path: 'cash' }, amount: '{{x}} * 2' }] }] } }],
    ['a malformed placeholder', { key: 'lines', chartOfAccounts: chart('cash'), ledgerEntries: { types: [{ type: 't', lines: [{ key: 'a', account: { path: 'cash' }, amount: '{{x}' }] }] } }],
    ['two sibling accounts with one key', { key: 'dupe', chartOfAccounts: chart('cash', 'cash') }],
    ['a top-level account without a type', { key: 'untyped', chartOfAccounts: { accounts: [{ key: 'cash' }] } }],
    ['a chart deeper than 10 levels', {
      key: 'deep',
      chartOfAccounts: { accounts: [Array.from({ length: 11 }).reduce<Record<string, unknown>>(
        (child, _, i) => ({ key: `level${i}`, type: 'asset', ...(i > 0 ? { children: [child] } : {}) }), {})] },
    }],
    ['a default currency with multi-currency mode', { key: 'multi', chartOfAccounts: { ...chart('cash'), defaultCurrencyMode: 'multi', defaultCurrency: { code: 'USD' } } }],
  ])('rejects %s with a BadRequestError and stores nothing', async (_label, schema, code = 'invalid_input_provided') => {
    const result = await store(schema);
    expect(result).toMatchObject({ __typename: 'BadRequestError', code });
    const versions = await gql(server.baseUrl, workspace.token, '{ schemas { nodes { key versions { nodes { version } } } } }');
    const stored = versions.body.data.schemas.nodes.find((s: { key: string }) => s.key === schema.key);
    expect(stored?.versions.nodes.length ?? 0).toBe(schema.key === 'shop' ? 2 : 0);
  });

  it('binds a ledger to a schema version that exists, and only to one', async () => {
    const latest = await gql(server.baseUrl, workspace.token, CREATE, { ik: 'on-latest', schema: { key: 'shop' } });
    expect(latest.body.data.createLedger.ledger.schema).toEqual({ key: 'shop', version: { version: 2 } });
    const pinned = await gql(server.baseUrl, workspace.token, CREATE, { ik: 'on-v1', schema: { key: 'shop', version: 1 } });
    expect(pinned.body.data.createLedger.ledger.schema).toEqual({ key: 'shop', version: { version: 1 } });
    const missing = await gql(server.baseUrl, workspace.token, CREATE, { ik: 'on-v9', schema: { key: 'shop', version: 9 } });
    expect(missing.body.data.createLedger).toEqual({ __typename: 'BadRequestError', code: 'schema_not_found' });
  });

  it('lists schemas by key', async () => {
    await store({ key: 'alpha', chartOfAccounts: chart('cash') });
    const list = await gql(server.baseUrl, workspace.token, '{ schemas { nodes { key } } }');
    const keys = list.body.data.schemas.nodes.map((s: { key: string }) => s.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toContain('alpha');
  });
});
