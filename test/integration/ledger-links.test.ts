import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Custom currencies, custom links, and the external accounts and transactions synced into
// them: idempotency by id and external id, the typed refusals, lists and lookups.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, alice.token, query, variables)).body;

const CREATE_CURRENCY = `mutation($c: CreateCustomCurrencyInput!) { createCustomCurrency(customCurrency: $c) {
  ... on CreateCustomCurrencyResult { customCurrency { code customCurrencyId customCode name precision } }
  ... on BadRequestError { code message } } }`;
const CREATE_LINK = `mutation($ik: SafeString!, $name: String!) { createCustomLink(ik: $ik, name: $name) {
  __typename ... on CreateCustomLinkResult { link { id name created } isIkReplay } ... on BadRequestError { code message } } }`;
const SYNC_ACCOUNTS = `mutation($link: ID!, $accounts: [CustomAccountInput!]!) { syncCustomAccounts(link: { id: $link }, accounts: $accounts) {
  __typename ... on SyncCustomAccountsResult { accounts { id externalId name linkId currencyMode currency { code customCurrencyId } } }
  ... on BadRequestError { code message } } }`;
const SYNC_TXS = `mutation($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) {
  __typename ... on SyncCustomTxsResult { txs { id externalId accountId externalAccountId linkId amount description posted date sequence isDeleted currency { code } } }
  ... on BadRequestError { code message } } }`;
const DELETE_TXS = `mutation($txs: [ID!]!) { deleteCustomTxs(txs: $txs) {
  __typename ... on DeleteCustomTxsResult { txs { tx { id isDeleted deletedAt } } } ... on BadRequestError { code message } } }`;

async function newLink(ik: string) {
  const body = await call(CREATE_LINK, { ik, name: `Bank ${ik}` });
  return body.data.createCustomLink.link.id as string;
}

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('custom currencies', () => {
  it('creates one, answers __typename unasked (as SDK 1.4.0 needs), replays the same id and refuses a different one', async () => {
    // The SDK's document selects no __typename on the result; Tally adds it.
    const created =
      await call(`mutation { createCustomCurrency(customCurrency: { customCurrencyId: "points", customCode: "PTS", name: "Points", precision: 0 }) {
      ... on CreateCustomCurrencyResult { customCurrency { code customCurrencyId } } } }`);
    expect(created.data.createCustomCurrency).toEqual({
      __typename: 'CreateCustomCurrencyResult',
      customCurrency: { code: 'CUSTOM', customCurrencyId: 'points' },
    });
    const replay = await call(CREATE_CURRENCY, {
      c: { customCurrencyId: 'points', customCode: 'PTS', name: 'Points', precision: 0 },
    });
    expect(replay.data.createCustomCurrency.customCurrency).toEqual({
      code: 'CUSTOM',
      customCurrencyId: 'points',
      customCode: 'PTS',
      name: 'Points',
      precision: 0,
    });
    const clash = await call(CREATE_CURRENCY, {
      c: { customCurrencyId: 'points', customCode: 'PT', name: 'Points', precision: 0 },
    });
    expect(clash.data.createCustomCurrency.code).toBe('idempotency_key_reused');
  });

  it('refuses ids and codes over 36 characters, blank names and precisions outside 0 to 18, writing nothing', async () => {
    const refused = async (c: Record<string, unknown>) =>
      (await call(CREATE_CURRENCY, { c: { customCurrencyId: 'x', customCode: 'X', name: 'X', precision: 2, ...c } }))
        .data.createCustomCurrency.code;
    expect(await refused({ customCurrencyId: 'a'.repeat(37) })).toBe('invalid_input_provided');
    expect(await refused({ customCode: 'C'.repeat(37) })).toBe('invalid_input_provided');
    expect(await refused({ name: '   ' })).toBe('invalid_input_provided');
    expect(await refused({ precision: 19 })).toBe('invalid_input_provided');
    expect(await refused({ precision: -1 })).toBe('invalid_input_provided');
    const tampered = await gql(server.baseUrl, alice.token, CREATE_CURRENCY, {
      c: { customCurrencyId: 'a:b', customCode: 'X', name: 'X', precision: 2 },
    });
    expect(tampered.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
    const list = await call('{ customCurrencies(first: 200) { nodes { customCurrencyId } } }');
    expect(
      list.data.customCurrencies.nodes.map((node: { customCurrencyId: string }) => node.customCurrencyId),
    ).not.toContain('x');
  });

  it('lists custom currencies newest first, page by page', async () => {
    for (const id of ['gold', 'silver', 'bronze']) {
      await call(CREATE_CURRENCY, {
        c: { customCurrencyId: id, customCode: id.toUpperCase(), name: id, precision: 3 },
      });
    }
    const first = await call(
      '{ customCurrencies(first: 2) { nodes { customCurrencyId } pageInfo { hasNextPage endCursor } } }',
    );
    expect(first.data.customCurrencies.nodes).toEqual([{ customCurrencyId: 'bronze' }, { customCurrencyId: 'silver' }]);
    const next = await call(
      'query($after: String) { customCurrencies(first: 2, after: $after) { nodes { customCurrencyId } } }',
      { after: first.data.customCurrencies.pageInfo.endCursor },
    );
    expect(next.data.customCurrencies.nodes).toEqual([{ customCurrencyId: 'gold' }, { customCurrencyId: 'points' }]);
  });

  it('is accepted wherever a currency is: accounts, lines, line filters and balances; an unknown one is custom_currency_not_found', async () => {
    await call('mutation { createLedger(ik: "cc", ledger: { name: "Custom currencies" }) { __typename } }');
    const accounts = await call(`mutation { createLedgerAccounts(ledger: { ik: "cc" }, ledgerAccounts: [
      { ik: "vault", name: "Vault", type: asset, currency: { code: CUSTOM, customCurrencyId: "gold" } },
      { ik: "holders", name: "Holders", type: liability, currency: { code: CUSTOM, customCurrencyId: "gold" } },
      { ik: "mixed", name: "Mixed", type: asset, currencyMode: multi },
      { ik: "mixed-owed", name: "Mixed owed", type: liability, currencyMode: multi }
    ]) { __typename ... on CreateLedgerAccountsResult { ledgerAccounts { path currency { code customCurrencyId customCode name precision } } } } }`);
    expect(accounts.data.createLedgerAccounts.ledgerAccounts[0].currency).toEqual({
      code: 'CUSTOM',
      customCurrencyId: 'gold',
      customCode: 'GOLD',
      name: 'gold',
      precision: 3,
    });

    const post = (ik: string, lines: unknown[]) =>
      call(
        `mutation($ik: SafeString!, $lines: [LedgerLineInput!]!) {
      addLedgerEntry(ik: $ik, entry: { ledger: { ik: "cc" }, lines: $lines }) { __typename ... on BadRequestError { code message } } }`,
        { ik, lines },
      );
    expect(
      (
        await post('g1', [
          { account: { path: 'vault' }, amount: '1500' },
          { account: { path: 'holders' }, amount: '1500' },
        ])
      ).data.addLedgerEntry.__typename,
    ).toBe('AddLedgerEntryResult');
    const gold = { code: 'CUSTOM', customCurrencyId: 'gold' };
    const usd = { code: 'USD' };
    expect(
      (
        await post('m1', [
          { account: { path: 'mixed' }, amount: '7', currency: gold },
          { account: { path: 'mixed-owed' }, amount: '7', currency: gold },
          { account: { path: 'mixed' }, amount: '300', currency: usd },
          { account: { path: 'mixed-owed' }, amount: '300', currency: usd },
        ])
      ).data.addLedgerEntry.__typename,
    ).toBe('AddLedgerEntryResult');
    const unknown = await post('m2', [
      { account: { path: 'mixed' }, amount: '1', currency: { code: 'CUSTOM', customCurrencyId: 'nope' } },
      { account: { path: 'mixed-owed' }, amount: '1', currency: { code: 'CUSTOM', customCurrencyId: 'nope' } },
    ]);
    expect(unknown.data.addLedgerEntry.code).toBe('custom_currency_not_found');
    const halfCustom = await post('m3', [
      { account: { path: 'mixed' }, amount: '1', currency: { code: 'CUSTOM' } },
      { account: { path: 'mixed-owed' }, amount: '1', currency: { code: 'CUSTOM' } },
    ]);
    expect(halfCustom.data.addLedgerEntry.code).toBe('invalid_input_provided');

    const read = await call(`{ ledgerAccount(ledgerAccount: { path: "mixed", ledger: { ik: "cc" } }) {
      gold: ownBalance(currency: { code: CUSTOM, customCurrencyId: "gold" })
      balances { nodes { amount currency { code customCurrencyId precision } } }
      lines(filter: { currency: { equalTo: { code: CUSTOM, customCurrencyId: "gold" } } }) { nodes { amount currency { customCurrencyId } } } } }`);
    expect(read.data.ledgerAccount.gold).toBe('7');
    expect(read.data.ledgerAccount.balances.nodes).toEqual([
      { amount: '7', currency: { code: 'CUSTOM', customCurrencyId: 'gold', precision: 3 } },
      { amount: '300', currency: { code: 'USD', customCurrencyId: null, precision: 2 } },
    ]);
    expect(read.data.ledgerAccount.lines.nodes).toEqual([{ amount: '7', currency: { customCurrencyId: 'gold' } }]);

    const missing =
      await call(`mutation { createLedgerAccount(ik: "nope", ledger: { ik: "cc" }, ledgerAccount: { name: "N", type: asset, currency: { code: CUSTOM, customCurrencyId: "nope" } }) {
      __typename ... on BadRequestError { code } } }`);
    expect(missing.data.createLedgerAccount.code).toBe('custom_currency_not_found');
    const schema = async (currency: Record<string, unknown>) =>
      (
        await call(
          `mutation($s: SchemaInput!) { storeSchema(schema: $s) { __typename ... on BadRequestError { code } } }`,
          {
            s: {
              key: `cc-${String(currency.customCurrencyId)}`,
              chartOfAccounts: { accounts: [{ key: 'vault', type: 'asset', currency }] },
            },
          },
        )
      ).data.storeSchema;
    expect(await schema({ code: 'CUSTOM', customCurrencyId: 'nope' })).toEqual({
      __typename: 'BadRequestError',
      code: 'custom_currency_not_found',
    });
    expect(await schema({ code: 'CUSTOM', customCurrencyId: 'gold' })).toEqual({ __typename: 'StoreSchemaResult' });
    await call(
      'mutation { createLedger(ik: "cc-schema", ledger: { name: "On schema" }, schema: { key: "cc-gold" }) { __typename } }',
    );
    const vault = await call(
      '{ ledgerAccount(ledgerAccount: { path: "vault", ledger: { ik: "cc-schema" } }) { currency { code customCurrencyId name } } }',
    );
    expect(vault.data.ledgerAccount.currency).toEqual({ code: 'CUSTOM', customCurrencyId: 'gold', name: 'gold' });
  });
});

describe('custom links and external accounts', () => {
  it('creates a link idempotently by ik and reads it by id and in the list', async () => {
    const first = await call(CREATE_LINK, { ik: 'bank', name: 'First Bank' });
    expect(first.data.createCustomLink).toMatchObject({
      __typename: 'CreateCustomLinkResult',
      isIkReplay: false,
      link: { name: 'First Bank' },
    });
    const again = await call(CREATE_LINK, { ik: 'bank', name: 'First Bank' });
    expect(again.data.createCustomLink).toMatchObject({
      isIkReplay: true,
      link: { id: first.data.createCustomLink.link.id },
    });
    const renamed = await call(CREATE_LINK, { ik: 'bank', name: 'Second Bank' });
    expect(renamed.data.createCustomLink.code).toBe('idempotency_key_reused');
    const blank = await call(CREATE_LINK, { ik: 'blank', name: ' ' });
    expect(blank.data.createCustomLink.code).toBe('invalid_input_provided');

    const id = first.data.createCustomLink.link.id;
    const read = await call(
      'query($id: ID!) { link(link: { id: $id }) { __typename id name dashboardUrl externalAccounts { nodes { id } } } }',
      { id },
    );
    expect(read.data.link).toEqual({
      __typename: 'CustomLink',
      id,
      name: 'First Bank',
      dashboardUrl: `${server.baseUrl}/dashboard/links/${id}`,
      externalAccounts: { nodes: [] },
    });
    expect((await call('{ link(link: { id: "link_00000000000000000000000000" }) { id } }')).data.link).toBeNull();
  });

  it('syncs accounts by external id: creates, renames, keeps the currency, and refuses what would change it', async () => {
    const link = await newLink('accounts');
    const created = await call(SYNC_ACCOUNTS, {
      link,
      accounts: [
        { externalId: 'chk', name: 'Checking' },
        { externalId: 'eur', name: 'Euro', currency: { code: 'EUR' } },
        { externalId: 'fx', name: 'FX', currencyMode: 'multi' },
      ],
    });
    const [checking, euro, fx] = created.data.syncCustomAccounts.accounts;
    expect(checking).toMatchObject({
      externalId: 'chk',
      name: 'Checking',
      linkId: link,
      currencyMode: 'single',
      currency: { code: 'USD' },
    });
    expect(euro.currency).toEqual({ code: 'EUR', customCurrencyId: null });
    expect(fx).toMatchObject({ currencyMode: 'multi', currency: null });

    const renamed = await call(SYNC_ACCOUNTS, { link, accounts: [{ externalId: 'chk', name: 'Main checking' }] });
    expect(renamed.data.syncCustomAccounts.accounts).toEqual([{ ...checking, name: 'Main checking' }]);
    const recurrency = await call(SYNC_ACCOUNTS, {
      link,
      accounts: [
        { externalId: 'new', name: 'New' },
        { externalId: 'chk', name: 'C', currency: { code: 'EUR' } },
      ],
    });
    expect(recurrency.data.syncCustomAccounts.code).toBe('idempotency_key_reused');
    // All or none: the new account of the refused call was not created.
    expect(
      (
        await call('query($l: ID!) { externalAccount(externalAccount: { linkId: $l, externalId: "new" }) { id } }', {
          l: link,
        })
      ).data.externalAccount,
    ).toBeNull();

    const refused = async (accounts: unknown[], linkId = link) =>
      (await call(SYNC_ACCOUNTS, { link: linkId, accounts })).data.syncCustomAccounts.code;
    expect(
      await refused([
        { externalId: 'a', name: 'A' },
        { externalId: 'a', name: 'B' },
      ]),
    ).toBe('invalid_input_provided');
    expect(await refused([{ externalId: 'm', name: 'M', currencyMode: 'multi', currency: { code: 'USD' } }])).toBe(
      'invalid_input_provided',
    );
    expect(await refused(Array.from({ length: 101 }, (_, index) => ({ externalId: `a${index}`, name: 'A' })))).toBe(
      'invalid_input_provided',
    );
    expect(await refused([])).toBe('invalid_input_provided');
    expect(await refused([{ externalId: 'a', name: 'A' }], 'link_00000000000000000000000000')).toBe('link_not_found');
    expect(
      await refused([{ externalId: 'a', name: 'A', currency: { code: 'CUSTOM', customCurrencyId: 'missing' } }]),
    ).toBe('custom_currency_not_found');

    const byId = await call(
      'query($id: ID!) { externalAccount(externalAccount: { id: $id }) { externalId link { id } } }',
      { id: euro.id },
    );
    expect(byId.data.externalAccount).toEqual({ externalId: 'eur', link: { id: link } });
    const byExternal = await call(
      'query($l: ID!) { externalAccount(externalAccount: { linkId: $l, externalId: "fx" }) { id } }',
      { l: link },
    );
    expect(byExternal.data.externalAccount.id).toBe(fx.id);
    const noLink = await gql(
      server.baseUrl,
      alice.token,
      '{ externalAccount(externalAccount: { externalId: "fx" }) { id } }',
    );
    expect(noLink.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
    const listed = await call(
      'query($id: ID!) { link(link: { id: $id }) { externalAccounts { nodes { externalId } } } }',
      { id: link },
    );
    expect(
      listed.data.link.externalAccounts.nodes.map((node: { externalId: string }) => node.externalId).sort(),
    ).toEqual(['chk', 'eur', 'fx']);
  });
});

describe('custom transactions', () => {
  let link: string;
  let checking: string;
  let fx: string;

  beforeAll(async () => {
    link = await newLink('txs');
    const synced = await call(SYNC_ACCOUNTS, {
      link,
      accounts: [
        { externalId: 'chk', name: 'Checking' },
        { externalId: 'fx', name: 'FX', currencyMode: 'multi' },
      ],
    });
    [checking, fx] = synced.data.syncCustomAccounts.accounts.map((account: { id: string }) => account.id);
  });

  it('records transactions idempotently by external id within the account, and refuses changed amounts', async () => {
    const tx = (externalId: string, amount: string, posted: string, extra: Record<string, unknown> = {}) => ({
      externalId,
      account: { id: checking },
      amount,
      description: `tx ${externalId}`,
      posted,
      ...extra,
    });
    const first = await call(SYNC_TXS, {
      link,
      txs: [tx('t1', '1000', '2026-03-01T10:00:00Z'), tx('t2', '-250', '2026-03-02')],
    });
    const [t1, t2] = first.data.syncCustomTxs.txs;
    expect(t1).toMatchObject({
      externalId: 't1',
      accountId: checking,
      externalAccountId: checking,
      linkId: link,
      amount: '1000',
      sequence: 1,
      isDeleted: false,
      currency: { code: 'USD' },
    });
    expect(t2).toMatchObject({ posted: '2026-03-02T00:00:00.000Z', date: '2026-03-02' });

    const again = await call(SYNC_TXS, {
      link,
      txs: [tx('t1', '1000', '2026-03-01T10:00:00.000Z', { description: 'renamed by the bank' })],
    });
    expect(again.data.syncCustomTxs.txs).toEqual([{ ...t1, description: 'renamed by the bank' }]);
    const changed = await call(SYNC_TXS, { link, txs: [tx('t1', '1001', '2026-03-01T10:00:00Z')] });
    expect(changed.data.syncCustomTxs.code).toBe('idempotency_key_reused');
    const moved = await call(SYNC_TXS, { link, txs: [tx('t1', '1000', '2026-03-01T11:00:00Z')] });
    expect(moved.data.syncCustomTxs.code).toBe('idempotency_key_reused');
  });

  it('needs a currency on multi-currency accounts, refuses another on single ones, and checks the account belongs to the link', async () => {
    const refused = async (txs: unknown[], linkId = link) =>
      (await call(SYNC_TXS, { link: linkId, txs })).data.syncCustomTxs.code;
    const base = { externalId: 'x', amount: '1', description: 'x', posted: '2026-03-03' };
    expect(await refused([{ ...base, account: { id: fx } }])).toBe('invalid_input_provided');
    expect(await refused([{ ...base, account: { id: checking }, currency: { code: 'EUR' } }])).toBe(
      'invalid_input_provided',
    );
    expect(await refused([{ ...base, account: { id: 'xacct_00000000000000000000000000' } }])).toBe(
      'external_account_not_found',
    );
    expect(await refused([{ ...base, account: { externalId: 'chk' } }])).toBe('invalid_input_provided');
    expect(await refused([{ ...base, account: { id: checking } }], await newLink('other'))).toBe(
      'external_account_not_found',
    );
    expect(
      await refused([
        { ...base, account: { id: checking } },
        { ...base, account: { linkId: link, externalId: 'chk' } },
      ]),
    ).toBe('invalid_input_provided');
    expect(await refused([{ ...base, account: { id: checking }, description: 'd'.repeat(1025) }])).toBe(
      'invalid_input_provided',
    );
    expect(
      await refused(
        Array.from({ length: 101 }, (_, index) => ({ ...base, externalId: `x${index}`, account: { id: checking } })),
      ),
    ).toBe('invalid_input_provided');
    const fxTx = await call(SYNC_TXS, {
      link,
      txs: [{ ...base, account: { linkId: link, externalId: 'fx' }, currency: { code: 'JPY' }, amount: '500' }],
    });
    expect(fxTx.data.syncCustomTxs.txs[0]).toMatchObject({ accountId: fx, amount: '500', currency: { code: 'JPY' } });
  });

  it('finds a transaction by id, by external id with its account, or with the account external id and link', async () => {
    const [t1] = (
      await call(SYNC_TXS, {
        link,
        txs: [
          { externalId: 'find', account: { id: checking }, amount: '5', description: 'find', posted: '2026-03-04' },
        ],
      })
    ).data.syncCustomTxs.txs;
    const find = async (match: Record<string, unknown>) =>
      (await call('query($m: TxMatchInput!) { tx(tx: $m) { id } }', { m: match })).data.tx;
    expect(await find({ id: t1.id })).toEqual({ id: t1.id });
    expect(await find({ externalId: 'find', accountId: checking })).toEqual({ id: t1.id });
    expect(await find({ externalId: 'find', externalAccountId: 'chk', linkId: link })).toEqual({ id: t1.id });
    expect(await find({ externalId: 'find', accountId: fx })).toBeNull();
    expect(await find({ id: t1.id, externalAccountId: 'chk', linkId: link })).toEqual({ id: t1.id });
    expect(await find({ id: t1.id, externalAccountId: 'fx' })).toBeNull();
    expect(await find({ id: t1.id, linkId: 'link_00000000000000000000000000' })).toBeNull();
    expect(await find({ id: 'tx_00000000000000000000000000' })).toBeNull();
    const vague = await gql(server.baseUrl, alice.token, '{ tx(tx: { externalId: "find" }) { id } }');
    expect(vague.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
  });

  it('deletes transactions out of lists but keeps them by id; syncing again makes a new one, one sequence up', async () => {
    const [gone] = (
      await call(SYNC_TXS, {
        link,
        txs: [{ externalId: 'dup', account: { id: checking }, amount: '77', description: 'dup', posted: '2026-03-05' }],
      })
    ).data.syncCustomTxs.txs;
    const unknown = await call(DELETE_TXS, { txs: [gone.id, 'tx_00000000000000000000000000'] });
    expect(unknown.data.deleteCustomTxs.code).toBe('tx_not_found');
    expect(
      (await call('query($id: ID!) { tx(tx: { id: $id }) { isDeleted } }', { id: gone.id })).data.tx.isDeleted,
    ).toBe(false);

    const deleted = await call(DELETE_TXS, { txs: [gone.id] });
    expect(deleted.data.deleteCustomTxs.txs[0].tx).toMatchObject({
      id: gone.id,
      isDeleted: true,
      deletedAt: expect.any(String),
    });
    const byId = await call('query($id: ID!) { tx(tx: { id: $id }) { id isDeleted sequence } }', { id: gone.id });
    expect(byId.data.tx).toEqual({ id: gone.id, isDeleted: true, sequence: 1 });
    expect(
      (await call('query($a: ID!) { tx(tx: { externalId: "dup", accountId: $a }) { id } }', { a: checking })).data.tx,
    ).toBeNull();
    const listed = await call(
      'query($id: ID!) { externalAccount(externalAccount: { id: $id }) { txs(first: 200) { nodes { id } } } }',
      { id: checking },
    );
    expect(listed.data.externalAccount.txs.nodes.map((node: { id: string }) => node.id)).not.toContain(gone.id);

    const [back] = (
      await call(SYNC_TXS, {
        link,
        txs: [{ externalId: 'dup', account: { id: checking }, amount: '78', description: 'dup', posted: '2026-03-05' }],
      })
    ).data.syncCustomTxs.txs;
    expect(back.id).not.toBe(gone.id);
    expect(back).toMatchObject({ sequence: 2, amount: '78', isDeleted: false });
    expect((await call(DELETE_TXS, { txs: [gone.id] })).data.deleteCustomTxs.txs[0].tx.deletedAt).toBe(
      deleted.data.deleteCustomTxs.txs[0].tx.deletedAt,
    );
  });

  it("lists an account's transactions newest posted first, page by page, with a tampered cursor refused", async () => {
    const account = await (async () => {
      const synced = await call(SYNC_ACCOUNTS, { link, accounts: [{ externalId: 'paged', name: 'Paged' }] });
      return synced.data.syncCustomAccounts.accounts[0].id as string;
    })();
    await call(SYNC_TXS, {
      link,
      txs: ['2026-01-03', '2026-01-01', '2026-01-02'].map((posted, index) => ({
        externalId: `p${index}`,
        account: { id: account },
        amount: String(index + 1),
        description: 'p',
        posted,
      })),
    });
    const page = async (after?: string) =>
      (
        await call(
          'query($id: ID!, $after: String) { externalAccount(externalAccount: { id: $id }) { txs(first: 2, after: $after) { nodes { externalId } pageInfo { hasNextPage endCursor } } } }',
          { id: account, after },
        )
      ).data.externalAccount.txs;
    const first = await page();
    expect(first.nodes).toEqual([{ externalId: 'p0' }, { externalId: 'p2' }]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    expect((await page(first.pageInfo.endCursor)).nodes).toEqual([{ externalId: 'p1' }]);
    const tampered = await gql(
      server.baseUrl,
      alice.token,
      'query($id: ID!) { externalAccount(externalAccount: { id: $id }) { txs(after: "bogus") { nodes { id } } } }',
      { id: account },
    );
    expect(tampered.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
  });
});
