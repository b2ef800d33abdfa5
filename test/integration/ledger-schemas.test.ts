import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Schemas of the ledger API. Ledgers built by a schema: the chart becomes accounts, template
// accounts are instantiated by the first entry that names them, typed entries render their lines
// from parameters, and a new schema version reaches every ledger on the schema. Storing a schema
// adds a version only when its content changes and refuses what a version may not contain or
// change; deleting one waits until no ledger uses it.

const STORE = `mutation($schema: SchemaInput!) {
  storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } }
}`;
const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename
    ... on AddLedgerEntryResult {
      isIkReplay
      entry { id type typeVersion parameters description tags { key value } groups { key value } }
      lines { amount key description account { path } }
    }
    ... on BadRequestError { code message }
  }
}`;
const ACCOUNTS = `query($ik: SafeString!) {
  ledger(ledger: { ik: $ik }) { schema { version { version } } ledgerAccounts(first: 200) { nodes { path type name currency { code } } } }
}`;
const BALANCE = `query($path: String!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: "wallets" } }) { ownBalance balance } }`;

type SchemaAccount = { key: string; type?: string; template?: boolean; name?: string; children?: SchemaAccount[] };

const users: SchemaAccount = {
  key: 'users',
  template: true,
  name: 'User {{user_id}}',
  children: [{ key: 'available' }, { key: 'pending' }],
};
const schemaV1 = {
  key: 'wallet-app',
  chartOfAccounts: {
    defaultCurrency: { code: 'USD' },
    defaultCurrencyMode: 'single',
    accounts: <SchemaAccount[]>[
      { key: 'assets', type: 'asset', children: [{ key: 'banks', children: [{ key: 'user-cash' }] }] },
      { key: 'liabilities', type: 'liability', children: [users] },
      { key: 'income', type: 'income', children: [{ key: 'fees' }] },
    ],
  },
  ledgerEntries: {
    types: [
      {
        type: 'fund_user',
        description: 'Funding {{user_id}}',
        lines: [
          { key: 'cash', account: { path: 'assets/banks/user-cash' }, amount: '{{amount}}' },
          { key: 'wallet', account: { path: 'liabilities/users:{{user_id}}/available' }, amount: '{{amount}}' },
        ],
        tags: [{ key: 'channel', value: '{{channel}}' }],
        parameters: { channel: 'api' },
      },
      {
        type: 'transfer',
        description: '{{from}} pays {{to}}',
        lines: [
          { key: 'debit', account: { path: 'liabilities/users:{{from}}/available' }, amount: '-{{amount}}' },
          { key: 'credit', account: { path: 'liabilities/users:{{to}}/available' }, amount: '{{amount}} - {{fee}}' },
          { key: 'fee', account: { path: 'income/fees' }, amount: '{{fee}}' },
        ],
        conditions: [
          { account: { path: 'liabilities/users:{{from}}/available' }, postcondition: { ownBalance: { gte: '0' } } },
        ],
        groups: [{ key: 'payer', value: '{{from}}' }],
      },
      { type: 'manual', description: 'Manual adjustment' },
    ],
  },
};

let server: TestServer;
let workspace: TestWorkspace;
beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('Wallets');
  expect(
    (await gql(server.baseUrl, workspace.token, STORE, { schema: schemaV1 })).body.data.storeSchema.__typename,
  ).toBe('StoreSchemaResult');
  const created = await gql(
    server.baseUrl,
    workspace.token,
    'mutation { createLedger(ik: "wallets", ledger: { name: "Wallets" }, schema: { key: "wallet-app" }) { __typename } }',
  );
  expect(created.body.data.createLedger.__typename).toBe('CreateLedgerResult');
});
afterAll(() => server?.close());

const call = async (query: string, variables?: Record<string, unknown>) =>
  (await gql(server.baseUrl, workspace.token, query, variables)).body;
const post = async (ik: string, entry: Record<string, unknown>) =>
  (await call(POST, { ik, entry: { ledger: { ik: 'wallets' }, ...entry } })).data.addLedgerEntry;
const paths = async (ik = 'wallets') =>
  ((await call(ACCOUNTS, { ik })).data.ledger.ledgerAccounts.nodes as { path: string }[]).map((a) => a.path).sort();
const balance = async (path: string) => (await call(BALANCE, { path })).data.ledgerAccount;

describe('a ledger created on a schema', () => {
  it('holds every chart account except templates, with types and currency inherited', async () => {
    expect(await paths()).toEqual([
      'assets',
      'assets/banks',
      'assets/banks/user-cash',
      'income',
      'income/fees',
      'liabilities',
    ]);
    const accounts = (await call(ACCOUNTS, { ik: 'wallets' })).data.ledger.ledgerAccounts.nodes;
    expect(accounts.find((a: { path: string }) => a.path === 'assets/banks/user-cash')).toMatchObject({
      type: 'asset',
      currency: { code: 'USD' },
    });
  });
});

describe('typed entries', () => {
  it('render lines from parameters and create the template instance they name, with its subtree', async () => {
    const result = await post('fund-alice', { type: 'fund_user', parameters: { user_id: 'alice', amount: '5000' } });
    expect(result).toMatchObject({
      __typename: 'AddLedgerEntryResult',
      isIkReplay: false,
      entry: {
        type: 'fund_user',
        typeVersion: 1,
        parameters: { user_id: 'alice', amount: '5000', channel: 'api' },
        description: 'Funding alice',
        tags: [{ key: 'channel', value: 'api' }],
      },
      lines: [
        { key: 'cash', amount: '5000', description: 'Funding alice', account: { path: 'assets/banks/user-cash' } },
        { key: 'wallet', amount: '5000', account: { path: 'liabilities/users:alice/available' } },
      ],
    });
    expect(await paths()).toEqual(
      expect.arrayContaining([
        'liabilities/users:alice',
        'liabilities/users:alice/available',
        'liabilities/users:alice/pending',
      ]),
    );
    const instance = (await call(ACCOUNTS, { ik: 'wallets' })).data.ledger.ledgerAccounts.nodes.find(
      (a: { path: string }) => a.path === 'liabilities/users:alice',
    );
    expect(instance).toMatchObject({ type: 'liability', name: 'User alice' });
    expect(await balance('liabilities/users:alice/available')).toEqual({ ownBalance: '5000', balance: '5000' });
  });

  it("evaluates + and - in amounts and checks the type's conditions atomically", async () => {
    const paid = await post('pay-1', {
      type: 'transfer',
      parameters: { from: 'alice', to: 'bob', amount: '1000', fee: '30' },
    });
    expect(paid.lines.map((l: { amount: string }) => l.amount)).toEqual(['-1000', '970', '30']);
    expect(paid.entry).toMatchObject({ description: 'alice pays bob', groups: [{ key: 'payer', value: 'alice' }] });
    expect(await balance('liabilities/users:bob/available')).toEqual({ ownBalance: '970', balance: '970' });

    const before = await paths();
    const overdraft = await post('pay-2', {
      type: 'transfer',
      parameters: { from: 'alice', to: 'carol', amount: '999999', fee: '0' },
    });
    expect(overdraft).toMatchObject({ __typename: 'BadRequestError', code: 'entry_condition_failed' });
    expect(overdraft.message).toContain('liabilities/users:alice/available');
    // The refused entry created no instance for its new payee.
    expect(await paths()).toEqual(before);
    expect(await balance('liabilities/users:alice/available')).toEqual({ ownBalance: '4000', balance: '4000' });
  });

  it('replays an ik with the original result, and refuses it with other parameters', async () => {
    const first = await post('fund-dan', { type: 'fund_user', parameters: { user_id: 'dan', amount: '10' } });
    const again = await post('fund-dan', { type: 'fund_user', parameters: { user_id: 'dan', amount: '10' } });
    expect(again).toMatchObject({ isIkReplay: true, entry: { id: first.entry.id } });
    const changed = await post('fund-dan', { type: 'fund_user', parameters: { user_id: 'dan', amount: '11' } });
    expect(changed).toMatchObject({ __typename: 'BadRequestError', code: 'idempotency_key_reused' });
    expect(await balance('liabilities/users:dan/available')).toEqual({ ownBalance: '10', balance: '10' });
  });

  it('takes integer literals in parameters as exact strings, and refuses numbers that lost precision', async () => {
    const literal =
      await call(`mutation { addLedgerEntry(ik: "fund-erin", entry: { ledger: { ik: "wallets" }, type: "fund_user",
      parameters: { user_id: "erin", amount: 123456789012345678901234567890 } }) {
      __typename ... on AddLedgerEntryResult { lines { amount } } } }`);
    expect(literal.data.addLedgerEntry.lines.map((l: { amount: string }) => l.amount)).toEqual([
      '123456789012345678901234567890',
      '123456789012345678901234567890',
    ]);
    const rounded = await call(POST, {
      ik: 'fund-frank',
      entry: { ledger: { ik: 'wallets' }, type: 'fund_user', parameters: { user_id: 'frank', amount: 2 ** 60 } },
    });
    expect(rounded.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
    const fraction =
      await call(`mutation { addLedgerEntry(ik: "fund-g", entry: { ledger: { ik: "wallets" }, type: "fund_user",
      parameters: { user_id: "g", amount: 1.5 } }) { __typename } }`);
    expect(fraction.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
  });

  it.each([
    ['an unknown entry type', { type: 'refund', parameters: {} }, 'entry_type_not_found'],
    [
      'a type version the schema lacks',
      { type: 'fund_user', typeVersion: 2, parameters: { user_id: 'x', amount: '1' } },
      'entry_type_not_found',
    ],
    ['a missing parameter', { type: 'fund_user', parameters: { user_id: 'x' } }, 'entry_parameters_invalid', 'amount'],
    [
      'an undeclared parameter',
      { type: 'fund_user', parameters: { user_id: 'x', amount: '1', memo: 'hi' } },
      'entry_parameters_invalid',
      'memo',
    ],
    [
      'a non-integer amount parameter',
      { type: 'fund_user', parameters: { user_id: 'x', amount: '1.5' } },
      'entry_parameters_invalid',
      'amount',
    ],
    [
      'a nested parameter value',
      { type: 'fund_user', parameters: { user_id: { id: 'x' }, amount: '1' } },
      'entry_parameters_invalid',
      'user_id',
    ],
    ['parameters that are not an object', { type: 'fund_user', parameters: ['x'] }, 'entry_parameters_invalid'],
    [
      'lines on a type that defines them',
      { type: 'fund_user', parameters: { user_id: 'x', amount: '1' }, lines: [] },
      'invalid_input_provided',
    ],
    ['no lines on a runtime type', { type: 'manual' }, 'invalid_input_provided'],
    [
      'a template value with a separator',
      { type: 'fund_user', parameters: { user_id: 'a:b', amount: '1' } },
      'ledger_account_not_found',
    ],
    [
      'a template value longer than 128 characters',
      { type: 'fund_user', parameters: { user_id: 'u'.repeat(5000), amount: '1' } },
      'ledger_account_not_found',
    ],
    [
      'a path the chart lacks',
      {
        type: 'manual',
        lines: [
          { account: { path: 'assets/vault' }, amount: '1' },
          { account: { path: 'income/fees' }, amount: '1' },
        ],
      },
      'ledger_account_not_found',
    ],
    [
      'a template addressed without its value',
      {
        type: 'manual',
        lines: [
          { account: { path: 'liabilities/users/available' }, amount: '1' },
          { account: { path: 'assets/banks/user-cash' }, amount: '1' },
        ],
      },
      'ledger_account_not_found',
    ],
    [
      'an amount beyond Int96',
      { type: 'fund_user', parameters: { user_id: 'x', amount: (1n << 121n).toString() } },
      'invalid_input_provided',
    ],
    ['parameters without a type', { parameters: { a: '1' }, lines: [] }, 'invalid_input_provided'],
  ])('refuses %s with a typed error and writes nothing', async (_label, entry, code, parameter?: string) => {
    const before = await paths();
    const result = await post(`bad-${code}-${Math.random()}`, entry);
    expect(result).toMatchObject({ __typename: 'BadRequestError', code });
    if (parameter) expect(result.message).toContain(parameter);
    expect(await paths()).toEqual(before);
  });

  it('posts runtime lines for a type without lines, instantiating templates by path', async () => {
    const result = await post('manual-1', {
      type: 'manual',
      lines: [
        { account: { path: 'liabilities/users:gina/pending' }, amount: '-5' },
        { account: { path: 'income/fees' }, amount: '5' },
      ],
    });
    expect(result).toMatchObject({
      entry: { type: 'manual', description: 'Manual adjustment' },
      lines: [{ account: { path: 'liabilities/users:gina/pending' } }, {}],
    });
  });

  it('creates a template instance once when many first entries race for it', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(`race-${i}`, { type: 'fund_user', parameters: { user_id: 'hana', amount: '1' } }),
      ),
    );
    expect(results.every((result) => result.__typename === 'AddLedgerEntryResult')).toBe(true);
    expect((await paths()).filter((path) => path.startsWith('liabilities/users:hana'))).toHaveLength(3);
    expect(await balance('liabilities/users:hana/available')).toEqual({ ownBalance: '12', balance: '12' });
  });

  it('keeps the instances of written first entries and none of refused ones posted beside them', async () => {
    // Posted together, these share groups: the refused transfers' new payers and payees must not survive them.
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => [
        post(`first-fund-${i}`, { type: 'fund_user', parameters: { user_id: `kim${i}`, amount: '3' } }),
        post(`first-overdraft-${i}`, {
          type: 'transfer',
          parameters: { from: `nil${i}`, to: `kim${i}`, amount: '2', fee: '0' },
        }),
      ]).flat(),
    );
    expect(results.map((result) => result.__typename)).toEqual(
      Array.from({ length: 4 }, () => ['AddLedgerEntryResult', 'BadRequestError']).flat(),
    );
    const all = await paths();
    expect(all.filter((path) => path.startsWith('liabilities/users:kim'))).toHaveLength(12);
    expect(all.filter((path) => path.startsWith('liabilities/users:nil'))).toEqual([]);
    expect(await balance('liabilities/users:kim3/available')).toEqual({ ownBalance: '3', balance: '3' });
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});

const schemaV2 = () => {
  const v2 = structuredClone(schemaV1);
  v2.chartOfAccounts.accounts[2].children!.push({ key: 'interest' });
  v2.chartOfAccounts.accounts[1].children![0].children!.push({ key: 'frozen' });
  return v2;
};

describe('a new schema version', () => {
  it('adds its accounts to every ledger on the schema, under existing template instances too', async () => {
    expect((await call(STORE, { schema: schemaV2() })).data.storeSchema.__typename).toBe('StoreSchemaResult');
    const after = await paths();
    expect(after).toEqual(
      expect.arrayContaining(['income/interest', 'liabilities/users:alice/frozen', 'liabilities/users:bob/frozen']),
    );
    expect((await call(ACCOUNTS, { ik: 'wallets' })).data.ledger.schema.version.version).toBe(2);
  });

  it('is refused as a whole when it would change an account a ledger holds', async () => {
    const before = await paths();
    const retyped = schemaV2();
    retyped.chartOfAccounts.accounts[2].type = 'expense';
    const refused = (await call(STORE, { schema: retyped })).data.storeSchema;
    expect(refused).toMatchObject({ __typename: 'BadRequestError', code: 'schema_change_incompatible' });
    expect(refused.message).toContain('income');
    expect(await paths()).toEqual(before);
  });

  it('refuses new lines on an account the schema disables', async () => {
    const v3 = schemaV2();
    (v3.chartOfAccounts.accounts[2].children![0] as { status?: string }).status = 'disabled';
    expect((await call(STORE, { schema: v3 })).data.storeSchema.__typename).toBe('StoreSchemaResult');
    const refused = await post('fee-after-disable', {
      type: 'transfer',
      parameters: { from: 'alice', to: 'bob', amount: '1', fee: '1' },
    });
    expect(refused).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    expect(refused.message).toContain('income/fees');
  });

  it('leaves every ledger consistent', async () => {
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});

describe('storeSchema', () => {
  const STORE_AND_READ = `mutation($schema: SchemaInput!) {
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

  // A workspace of its own: these tests count every version stored under their keys.
  let schemasWorkspace: TestWorkspace;
  beforeAll(async () => {
    schemasWorkspace = await server.workspace('Schemas');
  });
  const store = async (schema: Record<string, unknown>) =>
    (await gql(server.baseUrl, schemasWorkspace.token, STORE_AND_READ, { schema })).body.data.storeSchema;

  it('adds a version only when the content changes, and keeps every version readable', async () => {
    const first = await store({ key: 'shop', chartOfAccounts: chart('cash') });
    expect(first.schema).toMatchObject({ key: 'shop', name: 'shop', version: { version: 1 } });
    const same = await store({ key: 'shop', chartOfAccounts: chart('cash') });
    expect(same.schema.versions.nodes).toEqual([{ version: 1 }]);
    const grown = await store({ key: 'shop', name: 'Shop', chartOfAccounts: chart('cash', 'bank') });
    expect(grown.schema).toMatchObject({
      name: 'Shop',
      version: { version: 2 },
      versions: { nodes: [{ version: 2 }, { version: 1 }] },
    });
    expect(grown.schema.version.json.chartOfAccounts.accounts.map((a: { key: string }) => a.key)).toEqual([
      'cash',
      'bank',
    ]);
    const v1 = await gql(
      server.baseUrl,
      schemasWorkspace.token,
      '{ schema(schema: { key: "shop", version: 1 }) { version { version json } } }',
    );
    expect(v1.body.data.schema.version.json.chartOfAccounts.accounts).toHaveLength(1);
  });

  it.each<[string, { key: string } & Record<string, unknown>, string?]>([
    [
      'an account removed from a stored schema',
      { key: 'shop', chartOfAccounts: chart('cash') },
      'schema_change_incompatible',
    ],
    [
      'an account whose type changed',
      {
        key: 'shop',
        chartOfAccounts: {
          accounts: [
            { key: 'cash', type: 'asset' },
            { key: 'bank', type: 'liability' },
          ],
        },
      },
      'schema_change_incompatible',
    ],
    [
      'an account whose currency changed',
      {
        key: 'shop',
        chartOfAccounts: {
          accounts: [
            { key: 'cash', type: 'asset' },
            { key: 'bank', type: 'asset', currency: { code: 'EUR' } },
          ],
        },
      },
      'schema_change_incompatible',
    ],
    [
      'an entry line on an account the chart lacks',
      {
        key: 'lines',
        chartOfAccounts: chart('cash'),
        ledgerEntries: { types: [{ type: 't', lines: [{ key: 'a', account: { path: 'bank' }, amount: '{{x}}' }] }] },
      },
    ],
    [
      'an amount with an operator schemas do not allow',
      {
        key: 'lines',
        chartOfAccounts: chart('cash'),
        ledgerEntries: {
          types: [{ type: 't', lines: [{ key: 'a', account: { path: 'cash' }, amount: '{{x}} * 2' }] }],
        },
      },
    ],
    [
      'a malformed placeholder',
      {
        key: 'lines',
        chartOfAccounts: chart('cash'),
        ledgerEntries: { types: [{ type: 't', lines: [{ key: 'a', account: { path: 'cash' }, amount: '{{x}' }] }] },
      },
    ],
    ['two sibling accounts with one key', { key: 'dupe', chartOfAccounts: chart('cash', 'cash') }],
    ['a top-level account without a type', { key: 'untyped', chartOfAccounts: { accounts: [{ key: 'cash' }] } }],
    [
      'a chart deeper than 10 levels',
      {
        key: 'deep',
        chartOfAccounts: {
          accounts: [
            Array.from({ length: 11 }).reduce<Record<string, unknown>>(
              (child, _, i) => ({ key: `level${i}`, type: 'asset', ...(i > 0 ? { children: [child] } : {}) }),
              {},
            ),
          ],
        },
      },
    ],
    [
      'a default currency with multi-currency mode',
      {
        key: 'multi',
        chartOfAccounts: { ...chart('cash'), defaultCurrencyMode: 'multi', defaultCurrency: { code: 'USD' } },
      },
    ],
  ])(
    'rejects %s with a BadRequestError and stores nothing',
    async (_label, schema, code = 'invalid_input_provided') => {
      const result = await store(schema);
      expect(result).toMatchObject({ __typename: 'BadRequestError', code });
      const versions = await gql(
        server.baseUrl,
        schemasWorkspace.token,
        '{ schemas { nodes { key versions { nodes { version } } } } }',
      );
      const stored = versions.body.data.schemas.nodes.find((s: { key: string }) => s.key === schema.key);
      expect(stored?.versions.nodes.length ?? 0).toBe(schema.key === 'shop' ? 2 : 0);
    },
  );

  it('binds a ledger to a schema version that exists, and only to one', async () => {
    const latest = await gql(server.baseUrl, schemasWorkspace.token, CREATE, {
      ik: 'on-latest',
      schema: { key: 'shop' },
    });
    expect(latest.body.data.createLedger.ledger.schema).toEqual({ key: 'shop', version: { version: 2 } });
    const pinned = await gql(server.baseUrl, schemasWorkspace.token, CREATE, {
      ik: 'on-v1',
      schema: { key: 'shop', version: 1 },
    });
    expect(pinned.body.data.createLedger.ledger.schema).toEqual({ key: 'shop', version: { version: 1 } });
    const missing = await gql(server.baseUrl, schemasWorkspace.token, CREATE, {
      ik: 'on-v9',
      schema: { key: 'shop', version: 9 },
    });
    expect(missing.body.data.createLedger).toEqual({ __typename: 'BadRequestError', code: 'schema_not_found' });
  });

  it('lists schemas by key', async () => {
    await store({ key: 'alpha', chartOfAccounts: chart('cash') });
    const list = await gql(server.baseUrl, schemasWorkspace.token, '{ schemas { nodes { key } } }');
    const keys = list.body.data.schemas.nodes.map((s: { key: string }) => s.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toContain('alpha');
  });
});

describe('deleteSchema', () => {
  const DELETE = `mutation($key: SafeString!) {
    deleteSchema(schema: { key: $key }) { __typename ... on DeleteSchemaResult { success } ... on BadRequestError { code } } }`;

  it('is refused while a ledger uses the schema, and removes every version once none does', async () => {
    expect((await call(DELETE, { key: 'wallet-app' })).data.deleteSchema).toEqual({
      __typename: 'BadRequestError',
      code: 'schema_in_use',
    });
    await call(STORE, { schema: { key: 'scratch', chartOfAccounts: { accounts: [{ key: 'cash', type: 'asset' }] } } });
    await call(
      'mutation { createLedger(ik: "scratch-ledger", ledger: { name: "S" }, schema: { key: "scratch" }) { __typename } }',
    );
    await call('mutation { deleteLedger(ledger: { ik: "scratch-ledger" }) { __typename } }');
    expect((await call(DELETE, { key: 'scratch' })).data.deleteSchema).toEqual({
      __typename: 'DeleteSchemaResult',
      success: true,
    });
    expect((await call('{ schema(schema: { key: "scratch" }) { key } }')).data.schema).toBeNull();
    expect((await call(DELETE, { key: 'scratch' })).data.deleteSchema).toEqual({
      __typename: 'BadRequestError',
      code: 'schema_not_found',
    });
  });
});
