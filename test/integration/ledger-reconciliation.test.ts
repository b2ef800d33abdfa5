import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Linked ledger accounts and reconcileTx: a bank feed synced as custom transactions and
// reconciled into the ledger, typed and runtime, with every refusal typed and harmless.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, alice.token, query, variables)).body;

const RECONCILE = `mutation($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) {
  __typename
  ... on ReconcileTxResult { isIkReplay entry { id ik posted type } lines { id amount account { path } txId externalTxId tx { id externalId } } }
  ... on BadRequestError { code message } } }`;
const SYNC_TXS = `mutation($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) {
  __typename ... on SyncCustomTxsResult { txs { id externalId amount posted } } ... on BadRequestError { code message } } }`;
const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) {
  __typename ... on BadRequestError { code message } } }`;

let link: string;
let operating: string;
let spare: string;

async function feed(
  txs: { externalId: string; amount: string; posted: string; description?: string }[],
  account = operating,
) {
  const body = await call(SYNC_TXS, {
    link,
    txs: txs.map((tx) => ({ description: `bank ${tx.externalId}`, ...tx, account: { id: account } })),
  });
  expect(body.data.syncCustomTxs.__typename).toBe('SyncCustomTxsResult');
  return body.data.syncCustomTxs.txs as { id: string; externalId: string; amount: string; posted: string }[];
}

const unreconciled = async (ledger: string, path: string) =>
  (
    await call(`{ ledgerAccount(ledgerAccount: { path: "${path}", ledger: { ik: "${ledger}" } }) {
  unreconciledTxs(first: 200) { nodes { externalId } } } }`)
  ).data.ledgerAccount.unreconciledTxs.nodes.map((node: { externalId: string }) => node.externalId);

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  link = (
    await call(
      'mutation { createCustomLink(ik: "bank", name: "Bank") { ... on CreateCustomLinkResult { link { id } } } }',
    )
  ).data.createCustomLink.link.id;
  const accounts = await call(
    `mutation($link: ID!) { syncCustomAccounts(link: { id: $link }, accounts: [
    { externalId: "ops", name: "Operating" }, { externalId: "eur", name: "Euro", currency: { code: EUR } }, { externalId: "spare", name: "Spare" }
  ]) { ... on SyncCustomAccountsResult { accounts { id } } } }`,
    { link },
  );
  [operating, , spare] = accounts.data.syncCustomAccounts.accounts.map((account: { id: string }) => account.id);
});
afterAll(() => server?.close());

describe('linked ledger accounts', () => {
  beforeAll(async () => {
    await call('mutation { createLedger(ik: "runtime", ledger: { name: "Runtime" }) { __typename } }');
  });

  it("links a leaf account, taking its external account's currency, and reads the link both ways", async () => {
    const created = await call(
      `mutation($link: ID!) { createLedgerAccounts(ledger: { ik: "runtime" }, ledgerAccounts: [
      { ik: "bank", name: "Bank", type: asset, linkedAccount: { linkId: $link, externalId: "ops" } },
      { ik: "eur-bank", name: "Euro bank", type: asset, linkedAccount: { linkId: $link, externalId: "eur" } },
      { ik: "sales", name: "Sales", type: income }, { ik: "fees", name: "Fees", type: expense }
    ]) { __typename ... on CreateLedgerAccountsResult { ledgerAccounts { id path currency { code } linkedAccount { externalId } link { id } } } ... on BadRequestError { code message } } }`,
      { link },
    );
    const [bank, eurBank] = created.data.createLedgerAccounts.ledgerAccounts;
    expect(bank).toMatchObject({
      path: 'bank',
      currency: { code: 'USD' },
      linkedAccount: { externalId: 'ops' },
      link: { id: link },
    });
    expect(eurBank.currency).toEqual({ code: 'EUR' });
    const external = await call(
      'query($id: ID!) { externalAccount(externalAccount: { id: $id }) { ledgerAccounts { nodes { path } } } }',
      { id: operating },
    );
    expect(external.data.externalAccount.ledgerAccounts.nodes).toEqual([{ path: 'bank' }]);
    const listed = await call(
      `query($link: ID!) { ledger(ledger: { ik: "runtime" }) {
      linked: ledgerAccounts(filter: { isLinkedAccount: true }) { nodes { path } }
      toOps: ledgerAccounts(filter: { linkedAccount: { equalTo: { linkId: $link, externalId: "ops" } } }) { nodes { path } } } }`,
      { link },
    );
    expect(listed.data.ledger.linked.nodes.map((node: { path: string }) => node.path).sort()).toEqual([
      'bank',
      'eur-bank',
    ]);
    expect(listed.data.ledger.toOps.nodes).toEqual([{ path: 'bank' }]);
  });

  it('refuses a linked account with another currency, with children, under a linked parent, or to an unknown account', async () => {
    const create = async (ik: string, account: string) =>
      (
        await call(
          `mutation${account.includes('$link') ? '($link: ID!)' : ''} {
      createLedgerAccount(ik: "${ik}", ledger: { ik: "runtime" }, ledgerAccount: ${account}) { __typename ... on BadRequestError { code } } }`,
          { link },
        )
      ).data.createLedgerAccount;
    expect(
      await create(
        'x1',
        '{ name: "X", type: asset, currency: { code: GBP }, linkedAccount: { linkId: $link, externalId: "spare" } }',
      ),
    ).toEqual({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    expect(
      await create('x2', '{ name: "X", type: asset, linkedAccount: { linkId: $link, externalId: "none" } }'),
    ).toEqual({ __typename: 'BadRequestError', code: 'external_account_not_found' });
    expect(await create('x3', '{ name: "X", type: asset, linkedAccount: { externalId: "spare" } }')).toEqual({
      __typename: 'BadRequestError',
      code: 'invalid_input_provided',
    });
    expect(await create('x4', '{ name: "X", parent: { path: "bank" } }')).toEqual({
      __typename: 'BadRequestError',
      code: 'invalid_input_provided',
    });
    const tree = await call(
      `mutation($link: ID!) { createLedgerAccounts(ledger: { ik: "runtime" }, ledgerAccounts: [
      { ik: "x5", name: "X", type: asset, linkedAccount: { linkId: $link, externalId: "spare" }, childLedgerAccounts: [{ ik: "x6", name: "Y" }] }
    ]) { __typename ... on BadRequestError { code } } }`,
      { link },
    );
    expect(tree.data.createLedgerAccounts).toEqual({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    const paths = (
      await call('{ ledger(ledger: { ik: "runtime" }) { ledgerAccounts(first: 200) { nodes { path } } } }')
    ).data.ledger.ledgerAccounts.nodes;
    expect(paths.map((node: { path: string }) => node.path).filter((path: string) => path.startsWith('x'))).toEqual([]);
  });

  it('takes no plain entries: addLedgerEntry to a linked account, or naming a transaction, is reconciliation_required', async () => {
    const [tx] = await feed([{ externalId: 'plain', amount: '100', posted: '2026-02-01T09:00:00Z' }]);
    const toLinked = await call(POST, {
      ik: 'p1',
      entry: {
        ledger: { ik: 'runtime' },
        lines: [
          { account: { path: 'bank' }, amount: '100' },
          { account: { path: 'sales' }, amount: '100' },
        ],
      },
    });
    expect(toLinked.data.addLedgerEntry.code).toBe('reconciliation_required');
    const withTx = await call(POST, {
      ik: 'p2',
      entry: {
        ledger: { ik: 'runtime' },
        lines: [
          { account: { path: 'bank' }, amount: '100', tx: { id: tx.id } },
          { account: { path: 'sales' }, amount: '100' },
        ],
      },
    });
    expect(withTx.data.addLedgerEntry.code).toBe('reconciliation_required');
    const batch = await call(
      `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) { __typename ... on AddLedgerEntriesError { code errors { code } } } }`,
      {
        entries: [
          {
            ik: 'p3',
            entry: {
              ledger: { ik: 'runtime' },
              lines: [
                { account: { path: 'bank' }, amount: '1' },
                { account: { path: 'sales' }, amount: '1' },
              ],
            },
          },
        ],
      },
    );
    expect(batch.data.addLedgerEntries).toMatchObject({
      __typename: 'AddLedgerEntriesError',
      code: 'ledger_entry_batch_operation_failed',
      errors: [{ code: 'reconciliation_required' }],
    });
  });
});

describe('reconcileTx with explicit lines', () => {
  it("posts at the transaction's time, links the line to it, and replays a retry", async () => {
    const [tx] = await feed([{ externalId: 'sale-1', amount: '2500', posted: '2026-02-03T14:30:00Z' }]);
    expect(await unreconciled('runtime', 'bank')).toContain('sale-1');
    const entry = {
      ledger: { ik: 'runtime' },
      lines: [
        { account: { path: 'bank' }, amount: '2500', tx: { id: tx.id } },
        { account: { path: 'sales' }, amount: '2500' },
      ],
    };
    const first = await call(RECONCILE, { entry });
    expect(first.data.reconcileTx).toMatchObject({
      __typename: 'ReconcileTxResult',
      isIkReplay: false,
      entry: { posted: '2026-02-03T14:30:00.000Z' },
      lines: [
        { account: { path: 'bank' }, txId: tx.id, externalTxId: 'sale-1', tx: { id: tx.id, externalId: 'sale-1' } },
        { account: { path: 'sales' }, txId: null, tx: null },
      ],
    });
    expect(await unreconciled('runtime', 'bank')).not.toContain('sale-1');
    const retry = await call(RECONCILE, { entry });
    expect(retry.data.reconcileTx).toMatchObject({ isIkReplay: true, entry: { id: first.data.reconcileTx.entry.id } });
    const other = await call(RECONCILE, { entry: { ...entry, description: 'another story' } });
    expect(other.data.reconcileTx.code).toBe('tx_already_reconciled');
    const read = await call(
      'query($id: ID!) { tx(tx: { id: $id }) { ledgerEntryIds ledgerLines { nodes { account { path } } } } }',
      { id: tx.id },
    );
    expect(read.data.tx).toEqual({
      ledgerEntryIds: [first.data.reconcileTx.entry.id],
      ledgerLines: { nodes: [{ account: { path: 'bank' } }] },
    });
    const byIk = await call(
      'query($ik: SafeString!) { ledgerEntry(ledgerEntry: { ik: $ik, ledger: { ik: "runtime" } }) { id } }',
      { ik: first.data.reconcileTx.entry.ik },
    );
    expect(byIk.data.ledgerEntry.id).toBe(first.data.reconcileTx.entry.id);
  });

  it('refuses what does not mirror the transaction, writing nothing', async () => {
    const [tx] = await feed([{ externalId: 'fee-1', amount: '-40', posted: '2026-02-04T08:00:00Z' }]);
    const attempt = async (lines: unknown[], extra: Record<string, unknown> = {}) =>
      (await call(RECONCILE, { entry: { ledger: { ik: 'runtime' }, lines, ...extra } })).data.reconcileTx.code;
    const fee = (amount: string) => [
      { account: { path: 'bank' }, amount, tx: { id: tx.id } },
      { account: { path: 'fees' }, amount: String(-BigInt(amount)) },
    ];
    expect(await attempt(fee('-41'))).toBe('invalid_input_provided');
    expect(await attempt(fee('-40'), { posted: '2026-02-04T08:00:00Z' })).toBe('invalid_input_provided');
    expect(
      await attempt([
        { account: { path: 'bank' }, amount: '-40' },
        { account: { path: 'fees' }, amount: '40' },
      ]),
    ).toBe('reconciliation_required');
    expect(
      await attempt([
        { account: { path: 'sales' }, amount: '-40', tx: { id: tx.id } },
        { account: { path: 'fees' }, amount: '-40' },
      ]),
    ).toBe('invalid_input_provided');
    expect(
      await attempt([
        { account: { path: 'fees' }, amount: '40' },
        { account: { path: 'sales' }, amount: '40' },
      ]),
    ).toBe('reconciliation_required');
    expect(
      await attempt([
        { account: { path: 'bank' }, amount: '-40', tx: { id: 'tx_00000000000000000000000000' } },
        { account: { path: 'fees' }, amount: '40' },
      ]),
    ).toBe('tx_not_found');
    const [elsewhere] = await feed([{ externalId: 'fee-1', amount: '-40', posted: '2026-02-04T08:00:00Z' }], spare);
    expect(
      await attempt([
        { account: { path: 'bank' }, amount: '-40', tx: { id: elsewhere.id } },
        { account: { path: 'fees' }, amount: '40' },
      ]),
    ).toBe('tx_not_found');
    expect(
      await attempt([
        {
          account: { path: 'bank' },
          amount: '-40',
          tx: { externalId: 'fee-1', accountId: 'xacct_00000000000000000000000000' },
        },
        { account: { path: 'fees' }, amount: '40' },
      ]),
    ).toBe('tx_not_found');
    expect(
      await attempt([
        { account: { path: 'bank' }, amount: '-40', tx: { id: tx.id } },
        { account: { path: 'bank' }, amount: '-40', tx: { externalId: 'fee-1' } },
        { account: { path: 'fees' }, amount: '80' },
      ]),
    ).toBe('invalid_input_provided');
    expect(await unreconciled('runtime', 'bank')).toContain('fee-1');
    // By external id within the linked account, as a schema line would name it.
    const done = await call(RECONCILE, {
      entry: {
        ledger: { ik: 'runtime' },
        lines: [
          { account: { path: 'bank' }, amount: '-40', tx: { externalId: 'fee-1' } },
          { account: { path: 'fees' }, amount: '40' },
        ],
      },
    });
    expect(done.data.reconcileTx.lines[0].txId).toBe(tx.id);
  });

  it('frees the transaction when its entry is reversed; reconciling again reposts under the same ik', async () => {
    const [tx] = await feed([{ externalId: 'sale-2', amount: '900', posted: '2026-02-05T10:00:00Z' }]);
    const entry = {
      ledger: { ik: 'runtime' },
      lines: [
        { account: { path: 'bank' }, amount: '900', tx: { id: tx.id } },
        { account: { path: 'sales' }, amount: '900' },
      ],
    };
    const first = (await call(RECONCILE, { entry })).data.reconcileTx.entry;
    const deleted = await call(
      'mutation($id: ID!) { deleteCustomTxs(txs: [$id]) { __typename ... on BadRequestError { code } } }',
      { id: tx.id },
    );
    expect(deleted.data.deleteCustomTxs).toEqual({ __typename: 'BadRequestError', code: 'tx_already_reconciled' });
    await call('mutation($id: ID!) { reverseLedgerEntry(id: $id) { __typename } }', { id: first.id });
    expect(await unreconciled('runtime', 'bank')).toContain('sale-2');
    const again = (await call(RECONCILE, { entry })).data.reconcileTx;
    expect(again).toMatchObject({ isIkReplay: false, entry: { ik: first.ik } });
    expect(again.entry.id).not.toBe(first.id);
    // The reversal mirrors the reconciling line, transaction included.
    const reversed = await call(
      'query($id: ID!) { ledgerEntry(ledgerEntry: { id: $id }) { isReversed reversedBy { lines { nodes { amount txId } } } } }',
      { id: first.id },
    );
    expect(reversed.data.ledgerEntry).toEqual({
      isReversed: true,
      reversedBy: {
        lines: {
          nodes: [
            { amount: '-900', txId: tx.id },
            { amount: '-900', txId: null },
          ],
        },
      },
    });
    const history = await call('query($id: ID!) { tx(tx: { id: $id }) { ledgerEntryIds } }', { id: tx.id });
    expect(history.data.tx.ledgerEntryIds).toEqual([again.entry.id, first.id].sort().reverse());
  });
});

describe('a deleted ledger', () => {
  it('lets go of its linked accounts and of the transactions its entries reconciled', async () => {
    await call('mutation { createLedger(ik: "short-lived", ledger: { name: "Short-lived" }) { __typename } }');
    await call(
      `mutation($link: ID!) { createLedgerAccounts(ledger: { ik: "short-lived" }, ledgerAccounts: [
      { ik: "bank", name: "Bank", type: asset, linkedAccount: { linkId: $link, externalId: "spare" } }, { ik: "sales", name: "Sales", type: income }]) { __typename } }`,
      { link },
    );
    const [tx] = await feed([{ externalId: 'gone', amount: '10', posted: '2026-02-20T00:00:00Z' }], spare);
    const reconciled = await call(RECONCILE, {
      entry: {
        ledger: { ik: 'short-lived' },
        lines: [
          { account: { path: 'bank' }, amount: '10', tx: { id: tx.id } },
          { account: { path: 'sales' }, amount: '10' },
        ],
      },
    });
    expect(reconciled.data.reconcileTx.__typename).toBe('ReconcileTxResult');
    const entry = {
      ledger: { ik: 'short-lived' },
      lines: [
        { account: { path: 'bank' }, amount: '10', tx: { id: tx.id } },
        { account: { path: 'sales' }, amount: '10' },
      ],
    };
    const linked = async () =>
      (
        await call(
          'query($id: ID!) { externalAccount(externalAccount: { id: $id }) { ledgerAccounts { nodes { path } } } }',
          { id: spare },
        )
      ).data.externalAccount.ledgerAccounts.nodes;
    expect(await linked()).toEqual([{ path: 'bank' }]);
    await call('mutation { deleteLedger(ledger: { ik: "short-lived" }) { __typename } }');
    expect(await linked()).toEqual([]);
    // A retry now finds no ledger, though the server holds it as it read it for the first call.
    expect((await call(RECONCILE, { entry })).data.reconcileTx).toMatchObject({ code: 'ledger_not_found' });
    const deleted = await call('mutation($id: ID!) { deleteCustomTxs(txs: [$id]) { __typename } }', { id: tx.id });
    expect(deleted.data.deleteCustomTxs.__typename).toBe('DeleteCustomTxsResult');
  });
});

describe('concurrency', () => {
  it('reconciles a transaction once when many requests race, and syncs one transaction per external id', async () => {
    const synced = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(SYNC_TXS, {
          link,
          txs: [
            {
              externalId: 'race',
              account: { id: operating },
              amount: '300',
              description: 'race',
              posted: '2026-02-10T00:00:00Z',
            },
          ],
        }),
      ),
    );
    const ids = new Set(synced.map((body) => body.data.syncCustomTxs.txs[0].id));
    expect(ids.size).toBe(1);
    const [txId] = ids;
    const entry = (description: string) => ({
      ledger: { ik: 'runtime' },
      description,
      lines: [
        { account: { path: 'bank' }, amount: '300', tx: { id: txId } },
        { account: { path: 'sales' }, amount: '300' },
      ],
    });
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => call(RECONCILE, { entry: entry('same') })),
      ...Array.from({ length: 4 }, (_, index) => call(RECONCILE, { entry: entry(`other ${index}`) })),
      call('mutation($id: ID!) { deleteCustomTxs(txs: [$id]) { __typename ... on BadRequestError { code } } }', {
        id: txId,
      }),
    ]);
    const results = answers.slice(0, 8).map((body) => body.data.reconcileTx);
    const posted = results.filter((result) => result.__typename === 'ReconcileTxResult' && !result.isIkReplay);
    const deletedFirst = answers[8].data.deleteCustomTxs.__typename === 'DeleteCustomTxsResult';
    if (deletedFirst) {
      expect(posted).toEqual([]);
      expect(results.every((result) => result.code === 'tx_not_found')).toBe(true);
    } else {
      expect(posted).toHaveLength(1);
      const entryIds = new Set(
        results.filter((result) => result.__typename === 'ReconcileTxResult').map((result) => result.entry.id),
      );
      expect(entryIds.size).toBe(1);
      expect(
        results
          .filter((result) => result.__typename === 'BadRequestError')
          .every((result) => result.code === 'tx_already_reconciled'),
      ).toBe(true);
      expect(answers[8].data.deleteCustomTxs.code).toBe('tx_already_reconciled');
    }
    const read = await call('query($id: ID!) { tx(tx: { id: $id }) { ledgerEntryIds } }', { id: txId });
    expect(read.data.tx.ledgerEntryIds).toHaveLength(deletedFirst ? 0 : 1);
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});

describe('a bank feed reconciled end to end through a schema', () => {
  it('syncs the feed, reconciles every transaction (one deleted and re-synced), and ends with ledger and bank equal', async () => {
    const accounts = await call(
      `mutation($link: ID!) { syncCustomAccounts(link: { id: $link }, accounts: [{ externalId: "feed", name: "Feed account" }]) {
      ... on SyncCustomAccountsResult { accounts { id } } } }`,
      { link },
    );
    const feedAccount = accounts.data.syncCustomAccounts.accounts[0].id;
    const stored = await call(
      `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }`,
      {
        schema: {
          key: 'bank-feed',
          chartOfAccounts: {
            accounts: [
              { key: 'bank', type: 'asset', linkedAccount: { linkId: link, externalId: 'feed' } },
              { key: 'customers', type: 'liability' },
              { key: 'fees', type: 'expense' },
            ],
          },
          ledgerEntries: {
            types: [
              {
                type: 'deposit',
                lines: [
                  { key: 'in', account: { path: 'bank' }, amount: '{{amount}}', tx: { externalId: '{{bank_tx}}' } },
                  { key: 'owed', account: { path: 'customers' }, amount: '{{amount}}' },
                ],
              },
              {
                type: 'bank_fee',
                lines: [
                  { key: 'out', account: { path: 'bank' }, amount: '-{{fee}}', tx: { externalId: '{{bank_tx}}' } },
                  { key: 'cost', account: { path: 'fees' }, amount: '{{fee}}' },
                ],
              },
            ],
          },
        },
      },
    );
    expect(stored.data.storeSchema.__typename).toBe('StoreSchemaResult');
    await call(
      'mutation { createLedger(ik: "books", ledger: { name: "Books" }, schema: { key: "bank-feed" }) { __typename } }',
    );

    const synced = await feed(
      [
        { externalId: 'd1', amount: '10000', posted: '2026-04-01T09:00:00Z' },
        { externalId: 'd2', amount: '2500', posted: '2026-04-02T09:00:00Z' },
        { externalId: 'f1', amount: '-150', posted: '2026-04-03T09:00:00Z' },
        { externalId: 'd3', amount: '999', posted: '2026-04-04T09:00:00Z' }, // the bank corrects it below
      ],
      feedAccount,
    );
    expect((await unreconciled('books', 'bank')).sort()).toEqual(['d1', 'd2', 'd3', 'f1']);

    const wrong = synced.find((tx) => tx.externalId === 'd3')!;
    await call('mutation($id: ID!) { deleteCustomTxs(txs: [$id]) { __typename } }', { id: wrong.id });
    const [corrected] = await feed([{ externalId: 'd3', amount: '990', posted: '2026-04-04T09:00:00Z' }], feedAccount);
    expect(corrected.id).not.toBe(wrong.id);
    expect((await unreconciled('books', 'bank')).sort()).toEqual(['d1', 'd2', 'd3', 'f1']);

    const reconcile = (type: string, parameters: Record<string, string>) =>
      call(RECONCILE, { entry: { ledger: { ik: 'books' }, type, parameters } }).then((body) => body.data.reconcileTx);
    const remaining: number[] = [];
    for (const [type, parameters] of [
      ['deposit', { amount: '10000', bank_tx: 'd1' }],
      ['deposit', { amount: '2500', bank_tx: 'd2' }],
      ['bank_fee', { fee: '150', bank_tx: 'f1' }],
      ['deposit', { amount: '990', bank_tx: 'd3' }],
    ] as const) {
      const result = await reconcile(type, parameters);
      expect(result).toMatchObject({ __typename: 'ReconcileTxResult', entry: { type } });
      remaining.push((await unreconciled('books', 'bank')).length);
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    // The deleted transaction cannot be reconciled; the replaced amount would not match anyway.
    expect((await reconcile('deposit', { amount: '999', bank_tx: 'd3' })).code).toBe('invalid_input_provided');

    const bankTotal =
      synced.filter((tx) => tx.id !== wrong.id).reduce((sum, tx) => sum + BigInt(tx.amount), 0n) +
      BigInt(corrected.amount);
    const balance = await call(
      '{ ledgerAccount(ledgerAccount: { path: "bank", ledger: { ik: "books" } }) { ownBalance linkedAccount { txs { nodes { amount } } } } }',
    );
    const liveTotal = balance.data.ledgerAccount.linkedAccount.txs.nodes.reduce(
      (sum: bigint, node: { amount: string }) => sum + BigInt(node.amount),
      0n,
    );
    expect(BigInt(balance.data.ledgerAccount.ownBalance)).toBe(bankTotal);
    expect(liveTotal).toBe(bankTotal);
    expect(bankTotal).toBe(13340n);
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});
