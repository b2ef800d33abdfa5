import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

const ACCOUNT_FIELDS =
  'id ik path name type currencyMode currency { code name precision } consistencyConfig { lines ownBalanceUpdates } parentLedgerAccountId ledgerId';
const CREATE_ONE = `mutation($ik: SafeString!, $ledger: LedgerMatchInput!, $account: CreateLedgerAccountInput!) {
  createLedgerAccount(ik: $ik, ledger: $ledger, ledgerAccount: $account) {
    __typename
    ... on CreateLedgerAccountResult { isIkReplay ledgerAccount { ${ACCOUNT_FIELDS} } }
    ... on BadRequestError { code message }
    ... on InternalError { code }
  }
}`;
const CREATE_TREE = `mutation($ledger: LedgerMatchInput!, $accounts: [CreateLedgerAccountsInput!]!) {
  createLedgerAccounts(ledger: $ledger, ledgerAccounts: $accounts) {
    __typename
    ... on CreateLedgerAccountsResult { ikReplays { ik isIkReplay } ledgerAccounts { ${ACCOUNT_FIELDS} } }
    ... on BadRequestError { code message }
    ... on InternalError { code }
  }
}`;

let server: TestServer;
let alice: TestWorkspace;
let bob: TestWorkspace;
const ledger = { ik: 'books' };

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  bob = await server.workspace('Bob');
  await gql(
    server.baseUrl,
    alice.token,
    'mutation { createLedger(ik: "books", ledger: { name: "Books" }) { __typename } }',
  );
  await gql(
    server.baseUrl,
    alice.token,
    'mutation { storeSchema(schema: { key: "s", chartOfAccounts: { accounts: [{ key: "cash", type: asset }] } }) { __typename } }',
  );
  await gql(
    server.baseUrl,
    alice.token,
    'mutation { createLedger(ik: "on-schema", ledger: { name: "S" }, schema: { key: "s" }) { __typename } }',
  );
});
afterAll(() => server?.close());

const createOne = async (ik: string, account: Record<string, unknown>, token = alice.token, target = ledger) =>
  (await gql(server.baseUrl, token, CREATE_ONE, { ik, ledger: target, account })).body.data.createLedgerAccount;
const createTree = async (accounts: unknown[], target = ledger) =>
  (await gql(server.baseUrl, alice.token, CREATE_TREE, { ledger: target, accounts })).body.data.createLedgerAccounts;

describe('createLedgerAccount', () => {
  it('creates a top-level account with defaults, replays the same ik, and refuses it with another payload', async () => {
    const first = await createOne('bank', { name: 'Bank', type: 'asset' });
    expect(first).toMatchObject({
      __typename: 'CreateLedgerAccountResult',
      isIkReplay: false,
      ledgerAccount: {
        ik: 'bank',
        path: 'bank',
        type: 'asset',
        currencyMode: 'single',
        currency: { code: 'USD', name: 'US Dollar', precision: 2 },
        consistencyConfig: { lines: 'eventual', ownBalanceUpdates: 'eventual' },
        parentLedgerAccountId: null,
      },
    });
    const again = await createOne('bank', { name: 'Bank', type: 'asset' });
    expect(again).toMatchObject({ isIkReplay: true, ledgerAccount: { id: first.ledgerAccount.id } });
    const other = await createOne('bank', { name: 'Other bank', type: 'asset' });
    expect(other).toMatchObject({ __typename: 'BadRequestError', code: 'idempotency_key_reused' });
  });

  it('inherits the type from its parent and builds the path from iks', async () => {
    const child = await createOne('checking', {
      name: 'Checking',
      parent: { path: 'bank', ledger },
      currency: { code: 'JPY' },
    });
    expect(child.ledgerAccount).toMatchObject({
      path: 'bank/checking',
      type: 'asset',
      currency: { code: 'JPY', precision: 0 },
    });
  });

  it.each([
    ['no type at the top', { name: 'X' }, 'invalid_input_provided'],
    [
      "a type other than the parent's",
      { name: 'X', type: 'income', parent: { path: 'bank', ledger } },
      'invalid_input_provided',
    ],
    [
      'a multi-currency account with a currency',
      { name: 'X', type: 'asset', currencyMode: 'multi', currency: { code: 'EUR' } },
      'invalid_input_provided',
    ],
    ['an unknown parent', { name: 'X', parent: { path: 'nope', ledger } }, 'ledger_account_not_found'],
  ])('refuses %s and creates nothing', async (_label, account, code) => {
    const result = await createOne('refused', account);
    expect(result).toMatchObject({ __typename: 'BadRequestError', code });
    const found = await gql(
      server.baseUrl,
      alice.token,
      '{ ledgerAccount(ledgerAccount: { path: "refused", ledger: { ik: "books" } }) { id } }',
    );
    expect(found.body.data.ledgerAccount).toBeNull();
  });

  it("refuses ledgers that follow a schema, unknown ledgers and other workspaces' ledgers", async () => {
    expect(await createOne('x', { name: 'X', type: 'asset' }, alice.token, { ik: 'on-schema' })).toMatchObject({
      code: 'invalid_input_provided',
    });
    expect(await createOne('x', { name: 'X', type: 'asset' }, alice.token, { ik: 'missing' })).toMatchObject({
      code: 'ledger_not_found',
    });
    expect(await createOne('x', { name: 'X', type: 'asset' }, bob.token)).toMatchObject({ code: 'ledger_not_found' });
  });

  it('answers 20 concurrent identical requests with one account', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => createOne('race', { name: 'Race', type: 'liability' })),
    );
    expect(results.filter((r) => !r.ledgerAccount)).toEqual([]);
    expect(new Set(results.map((r) => r.ledgerAccount.id)).size).toBe(1);
    expect(results.filter((r) => !r.isIkReplay)).toHaveLength(1);
  });
});

describe('createLedgerAccounts', () => {
  const tree = [
    {
      ik: 'liabilities',
      name: 'Liabilities',
      type: 'liability',
      currencyMode: 'multi',
      childLedgerAccounts: [
        { ik: 'users', name: 'Users', childLedgerAccounts: [{ ik: 'alice', name: 'Alice' }] },
        { ik: 'fees', name: 'Fees', currency: { code: 'EUR' } },
      ],
    },
  ];

  it('creates a tree depth-first, inheriting type, currency mode and consistency, and replays it per ik', async () => {
    const first = await createTree(tree);
    expect(first.ledgerAccounts.map((a: { path: string }) => a.path)).toEqual([
      'liabilities',
      'liabilities/users',
      'liabilities/users/alice',
      'liabilities/fees',
    ]);
    expect(first.ledgerAccounts.map((a: { type: string }) => a.type)).toEqual([
      'liability',
      'liability',
      'liability',
      'liability',
    ]);
    expect(first.ledgerAccounts.map((a: { currencyMode: string }) => a.currencyMode)).toEqual([
      'multi',
      'multi',
      'multi',
      'single',
    ]);
    expect(first.ikReplays.every((r: { isIkReplay: boolean }) => !r.isIkReplay)).toBe(true);
    const grown = await createTree([
      { ...tree[0], childLedgerAccounts: [...tree[0].childLedgerAccounts, { ik: 'tax', name: 'Tax' }] },
    ]);
    expect(grown.ikReplays).toEqual([
      { ik: 'liabilities', isIkReplay: true },
      { ik: 'users', isIkReplay: true },
      { ik: 'alice', isIkReplay: true },
      { ik: 'fees', isIkReplay: true },
      { ik: 'tax', isIkReplay: false },
    ]);
  });

  it.each([
    [
      'a duplicate ik in the call',
      [
        { ik: 'd', name: 'D', type: 'asset' },
        { ik: 'd', name: 'D', type: 'asset' },
      ],
    ],
    [
      'more than 10 levels',
      [
        Array.from({ length: 11 }).reduce<Record<string, unknown> | undefined>(
          (child, _, i) => ({
            ik: `deep${i}`,
            name: 'Deep',
            ...(i === 10 ? { type: 'asset' } : {}),
            ...(child ? { childLedgerAccounts: [child] } : {}),
          }),
          undefined,
        ),
      ],
    ],
    [
      'more than 200 accounts',
      [
        {
          ik: 'many',
          name: 'Many',
          type: 'asset',
          childLedgerAccounts: Array.from({ length: 200 }, (_, i) => ({ ik: `m${i}`, name: 'M' })),
        },
      ],
    ],
    [
      'a parent below the top',
      [{ ik: 'p', name: 'P', type: 'asset', childLedgerAccounts: [{ ik: 'q', name: 'Q', parent: { path: 'bank' } }] }],
    ],
    ['an empty list', []],
  ])('refuses %s, all or nothing', async (_label, accounts) => {
    const result = await createTree(accounts);
    expect(result).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    const list = await gql(
      server.baseUrl,
      alice.token,
      '{ ledger(ledger: { ik: "books" }) { ledgerAccounts(first: 200, filter: { path: { in: ["d", "deep10", "many", "p"] } }) { nodes { path } } } }',
    );
    expect(list.body.data.ledger.ledgerAccounts.nodes).toEqual([]);
  });
});

describe('reading and updating accounts', () => {
  it('finds an account by id or by ledger and path, and lists with filters, newest first', async () => {
    const byPath = await gql(
      server.baseUrl,
      alice.token,
      `{ ledgerAccount(ledgerAccount: { path: "liabilities/users", ledger: { ik: "books" } }) { id path
      parentLedgerAccount { path } childLedgerAccounts { nodes { path } } ledger { ik } } }`,
    );
    const account = byPath.body.data.ledgerAccount;
    expect(account).toMatchObject({
      path: 'liabilities/users',
      parentLedgerAccount: { path: 'liabilities' },
      childLedgerAccounts: { nodes: [{ path: 'liabilities/users/alice' }] },
      ledger: { ik: 'books' },
    });
    const byId = await gql(
      server.baseUrl,
      alice.token,
      `{ ledgerAccount(ledgerAccount: { id: "${account.id}" }) { path } }`,
    );
    expect(byId.body.data.ledgerAccount.path).toBe('liabilities/users');
    expect(
      (await gql(server.baseUrl, bob.token, `{ ledgerAccount(ledgerAccount: { id: "${account.id}" }) { path } }`)).body
        .data.ledgerAccount,
    ).toBeNull();

    const list = async (filter: string) =>
      (
        await gql(
          server.baseUrl,
          alice.token,
          `{ ledger(ledger: { ik: "books" }) { ledgerAccounts(first: 200, filter: ${filter}) { nodes { path } } } }`,
        )
      ).body.data.ledger.ledgerAccounts.nodes.map((n: { path: string }) => n.path);
    expect(await list('{ type: { equalTo: asset } }')).toEqual(['bank/checking', 'bank']);
    expect(await list('{ hasParentLedgerAccount: false, type: { in: [liability] } }')).toEqual(['liabilities', 'race']);
    expect(await list('{ path: { matches: "liabilities/*" } }')).toEqual([
      'liabilities/tax',
      'liabilities/fees',
      'liabilities/users/alice',
      'liabilities/users',
    ]);
    expect(await list('{ parentLedgerAccount: { equalTo: { path: "liabilities" } } }')).toEqual([
      'liabilities/tax',
      'liabilities/fees',
      'liabilities/users',
    ]);
    expect(await list('{ isLinkedAccount: true }')).toEqual([]);
  });

  it('renames an account and changes its consistency, keeping what was left out', async () => {
    const update = await gql(
      server.baseUrl,
      alice.token,
      `mutation { updateLedgerAccount(ledgerAccount: { path: "bank", ledger: { ik: "books" } },
      update: { name: "Main bank", consistencyConfig: { ownBalanceUpdates: strong } }) {
        __typename ... on UpdateLedgerAccountResult { ledgerAccount { name consistencyConfig { lines ownBalanceUpdates } } } } }`,
    );
    expect(update.body.data.updateLedgerAccount.ledgerAccount).toEqual({
      name: 'Main bank',
      consistencyConfig: { lines: 'eventual', ownBalanceUpdates: 'strong' },
    });
    const missing = await gql(
      server.baseUrl,
      bob.token,
      `mutation { updateLedgerAccount(ledgerAccount: { path: "bank", ledger: { ik: "books" } }, update: { name: "x" }) {
      __typename ... on BadRequestError { code } } }`,
    );
    expect(missing.body.data.updateLedgerAccount).toEqual({
      __typename: 'BadRequestError',
      code: 'ledger_account_not_found',
    });
  });
});
