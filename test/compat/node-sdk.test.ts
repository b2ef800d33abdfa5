import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// The official FRAGMENT Node SDK, unmodified, pointed at Tally: its own token request, its own
// documents, its own response handling. If Tally drifts from the wire contract, this fails.

const require = createRequire(import.meta.url);
const { createFragmentClient, BadRequestError } =
  require('@fragment-dev/node-client') as typeof import('@fragment-dev/node-client');
const { LedgerAccountTypes } =
  require('@fragment-dev/node-client/types') as typeof import('@fragment-dev/node-client/types');

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
          accounts: [
            { key: 'assets', type: LedgerAccountTypes.Asset },
            { key: 'liabilities', type: LedgerAccountTypes.Liability },
          ],
        },
      },
    });
    expect(stored.storeSchema).toMatchObject({
      __typename: 'StoreSchemaResult',
      schema: { key: 'sdk-schema', version: { version: 1 } },
    });

    const created = await client.createLedger({
      ik: 'sdk-ledger',
      ledger: { name: 'SDK ledger' },
      schemaKey: 'sdk-schema',
    });
    expect(created.createLedger).toMatchObject({
      __typename: 'CreateLedgerResult',
      isIkReplay: false,
      ledger: { ik: 'sdk-ledger', name: 'SDK ledger', schema: { key: 'sdk-schema' } },
    });

    const fetched = await client.getLedger({ ik: 'sdk-ledger' });
    expect(fetched.ledger).toMatchObject({ ik: 'sdk-ledger', name: 'SDK ledger', balanceUTCOffset: '+00:00' });

    const updated = await client.updateLedger({ ledgerIk: 'sdk-ledger', update: { name: 'Renamed by SDK' } });
    expect(updated.updateLedger).toMatchObject({
      __typename: 'UpdateLedgerResult',
      ledger: { name: 'Renamed by SDK' },
    });

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
    await gql(
      server.baseUrl,
      workspace.token,
      'mutation { createLedger(ik: "sdk-accounts", ledger: { name: "Accounts" }) { __typename } }',
    );
    await gql(
      server.baseUrl,
      workspace.token,
      `mutation { createLedgerAccounts(ledger: { ik: "sdk-accounts" }, ledgerAccounts: [
      { ik: "bank", name: "Bank", type: asset, childLedgerAccounts: [{ ik: "operating", name: "Operating" }] },
      { ik: "revenue", name: "Revenue", type: income }]) { __typename } }`,
    );
    const client = sdkClient();
    const first = await client.listLedgerAccounts({ ledgerIk: 'sdk-accounts', first: 2 });
    expect(first.ledger?.ledgerAccounts.nodes.map((node) => [node.path, node.type])).toEqual([
      ['revenue', 'income'],
      ['bank/operating', 'asset'],
    ]);
    expect(first.ledger?.ledgerAccounts.pageInfo.hasNextPage).toBe(true);
    const next = await client.listLedgerAccounts({
      ledgerIk: 'sdk-accounts',
      first: 2,
      after: first.ledger!.ledgerAccounts.pageInfo.endCursor!,
    });
    expect(next.ledger?.ledgerAccounts.nodes.map((node) => node.path)).toEqual(['bank']);
    expect(next.ledger?.ledgerAccounts.pageInfo.hasNextPage).toBe(false);
  });

  it('posts typed and runtime entries, reads them, their lines and balances, reverses, migrates and tags them', async () => {
    const client = sdkClient();
    await client.storeSchema({
      schema: {
        key: 'sdk-wallets',
        chartOfAccounts: {
          defaultCurrency: { code: 'USD' as never },
          accounts: [
            { key: 'bank', type: LedgerAccountTypes.Asset },
            { key: 'users', type: LedgerAccountTypes.Liability, template: true, children: [{ key: 'wallet' }] },
            { key: 'fees', type: LedgerAccountTypes.Income },
          ],
        },
        ledgerEntries: {
          types: [
            {
              type: 'deposit',
              description: 'Deposit for {{user}}',
              lines: [
                { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' },
                { key: 'wallet', account: { path: 'users:{{user}}/wallet' }, amount: '{{amount}}' },
              ],
            },
            { type: 'adjustment' },
          ],
        },
      },
    });
    await client.createLedger({ ik: 'sdk-wallets', ledger: { name: 'Wallets' }, schemaKey: 'sdk-wallets' });

    const typed = await client.addLedgerEntry({
      ik: 'dep-1',
      ledgerIk: 'sdk-wallets',
      type: 'deposit',
      parameters: { user: 'ann', amount: '1200' },
      groups: [{ key: 'day', value: 'd1' }],
    });
    expect(typed.addLedgerEntry).toMatchObject({
      __typename: 'AddLedgerEntryResult',
      isIkReplay: false,
      entry: { type: 'deposit', ik: 'dep-1' },
      lines: [
        { amount: '1200', account: { path: 'bank' } },
        { amount: '1200', account: { path: 'users:ann/wallet' } },
      ],
    });
    const runtime = await client.addLedgerEntryRuntime({
      ik: 'adj-1',
      ledgerIk: 'sdk-wallets',
      type: 'adjustment',
      lines: [
        { account: { path: 'users:ann/wallet' }, amount: '-200' },
        { account: { path: 'fees' }, amount: '200' },
      ],
      groups: [{ key: 'day', value: 'd1' }],
    });
    expect(runtime.addLedgerEntry).toMatchObject({ __typename: 'AddLedgerEntryResult', entry: { type: 'adjustment' } });

    const entry = await client.getLedgerEntry({ ik: 'dep-1', ledgerIk: 'sdk-wallets' });
    expect(entry.ledgerEntry?.lines.nodes.map((line) => line.amount)).toEqual(['1200', '1200']);
    const entries = await client.listLedgerEntries({ ledgerIk: 'sdk-wallets' });
    expect(entries.ledger!.ledgerEntries.nodes.map((node) => node.ik).sort()).toEqual(['adj-1', 'dep-1']);
    const lines = await client.getLedgerAccountLines({ path: 'users:ann/wallet', ledgerIk: 'sdk-wallets' });
    expect(lines.ledgerAccount?.lines.nodes.map((line) => line.amount).sort()).toEqual(['-200', '1200']);
    const own = await client.getLedgerAccountBalance({ path: 'users:ann/wallet', ledgerIk: 'sdk-wallets' });
    expect(own.ledgerAccount?.ownBalance).toBe('1000');
    const rollup = await client.GetLedgerAccountBalanceWithChildRollup({ path: 'users:ann', ledgerIk: 'sdk-wallets' });
    expect(rollup.ledgerAccount?.balance).toBe('1000');
    const balances = await client.listLedgerAccountBalances({ ledgerIk: 'sdk-wallets' });
    expect(balances.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'fees')).toMatchObject({
      ownBalance: '200',
      balance: '200',
    });
    const multi = await client.listMultiCurrencyLedgerAccountBalances({ ledgerIk: 'sdk-wallets' });
    expect(multi.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'bank')?.balances.nodes).toEqual([
      { currency: { code: 'USD', customCurrencyId: null }, amount: '1200' },
    ]);
    const group = await client.listLedgerEntryGroupBalances({
      ledgerIk: 'sdk-wallets',
      groupKey: 'day',
      groupValue: 'd1',
    });
    expect(group.ledgerEntryGroup?.balances.nodes.map((node) => [node.account.path, node.ownBalance])).toEqual([
      ['bank', '1200'],
      ['fees', '200'],
      ['users:ann/wallet', '1000'],
    ]);

    const tagged = await client.updateLedgerEntry({
      entryIk: 'dep-1',
      ledgerIk: 'sdk-wallets',
      update: { tags: [{ key: 'source', value: 'sdk' }] },
    });
    expect(tagged.updateLedgerEntry).toMatchObject({
      __typename: 'UpdateLedgerEntryResult',
      entry: { tags: [{ key: 'source', value: 'sdk' }] },
    });
    const migrated = await client.migrateLedgerEntry({
      id: typed.addLedgerEntry.__typename === 'AddLedgerEntryResult' ? typed.addLedgerEntry.entry.id : '',
      newLedgerEntry: {
        ledger: { ik: 'sdk-wallets' },
        type: 'deposit',
        parameters: { user: 'ann', amount: '1500' },
      },
    });
    expect(migrated.migrateLedgerEntry).toMatchObject({
      __typename: 'MigrateLedgerEntryResult',
      isIkReplay: false,
      newLedgerEntry: { ik: 'dep-1' },
    });
    expect(
      (await client.getLedgerAccountBalance({ path: 'users:ann/wallet', ledgerIk: 'sdk-wallets' })).ledgerAccount
        ?.ownBalance,
    ).toBe('1300');
    const reversed = await client.reverseLedgerEntry({
      id: runtime.addLedgerEntry.__typename === 'AddLedgerEntryResult' ? runtime.addLedgerEntry.entry.id : '',
    });
    expect(reversed.reverseLedgerEntry).toMatchObject({
      __typename: 'ReverseLedgerEntryResult',
      isIkReplay: false,
      reversingLedgerEntry: { ik: 'adj-1', hidden: true },
    });
    expect(
      (await client.getLedgerAccountBalance({ path: 'users:ann/wallet', ledgerIk: 'sdk-wallets' })).ledgerAccount
        ?.ownBalance,
    ).toBe('1500');

    const refused = client.deleteSchema({ schema: { key: 'sdk-wallets' } });
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toMatchObject({ code: 'schema_in_use' });
  });
  it('reads balances at a moment through every balance method that takes balanceAt, at the ledger offset', async () => {
    const client = sdkClient();
    await client.storeSchema({
      schema: {
        key: 'sdk-history',
        chartOfAccounts: {
          defaultCurrency: { code: 'INR' as never },
          accounts: [
            { key: 'bank', type: LedgerAccountTypes.Asset },
            { key: 'users', type: LedgerAccountTypes.Liability, children: [{ key: 'ann' }] },
          ],
        },
        ledgerEntries: {
          types: [
            {
              type: 'deposit',
              lines: [
                { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' },
                { key: 'ann', account: { path: 'users/ann' }, amount: '{{amount}}' },
              ],
            },
          ],
        },
      },
    });
    await client.createLedger({
      ik: 'sdk-history',
      ledger: { name: 'History', balanceUTCOffset: '+05:30' },
      schemaKey: 'sdk-history',
    });
    // 18:45Z on 31 January is 00:15 on 1 February at +05:30.
    await client.addLedgerEntry({
      ik: 'jan',
      ledgerIk: 'sdk-history',
      type: 'deposit',
      parameters: { amount: '100' },
      posted: '2026-01-15T00:00:00Z',
    });
    await client.addLedgerEntry({
      ik: 'feb',
      ledgerIk: 'sdk-history',
      type: 'deposit',
      parameters: { amount: '20' },
      posted: '2026-01-31T18:45:00Z',
    });
    await client.addLedgerEntry({ ik: 'now', ledgerIk: 'sdk-history', type: 'deposit', parameters: { amount: '3' } });

    const own = await client.getLedgerAccountBalance({
      path: 'users/ann',
      ledgerIk: 'sdk-history',
      balanceAt: '2026-01',
    });
    expect(own.ledgerAccount?.ownBalance).toBe('100');
    const rollup = await client.GetLedgerAccountBalanceWithChildRollup({
      path: 'users',
      ledgerIk: 'sdk-history',
      balanceAt: '2026-02-01',
    });
    expect(rollup.ledgerAccount).toMatchObject({ path: 'users', balance: '120' });
    const listed = await client.listLedgerAccountBalances({
      ledgerIk: 'sdk-history',
      balanceAt: '2026-01-31T23',
      balanceCurrency: { code: 'INR' as never },
    });
    expect(listed.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'bank')).toMatchObject({
      ownBalance: '100',
      balance: '100',
    });
    const multi = await client.listMultiCurrencyLedgerAccountBalances({
      ledgerIk: 'sdk-history',
      balanceAt: '2026-02',
    });
    expect(multi.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'bank')?.balances.nodes).toEqual([
      { currency: { code: 'INR', customCurrencyId: null }, amount: '120' },
    ]);
    const latest = await client.getLedgerAccountBalance({ path: 'bank', ledgerIk: 'sdk-history' });
    expect(latest.ledgerAccount?.ownBalance).toBe('123');
  });

  it('creates a custom currency, and reads it back through a ledger account that holds it', async () => {
    const client = sdkClient();
    // SDK 1.4.0's document selects no __typename here; Tally adds it, so the SDK resolves.
    const created = await client.createCustomCurrency({
      id: 'sdk-points',
      name: 'SDK points',
      precision: 1,
      customCode: 'SPT',
    });
    expect(created.createCustomCurrency).toEqual({
      __typename: 'CreateCustomCurrencyResult',
      customCurrency: {
        code: 'CUSTOM',
        customCurrencyId: 'sdk-points',
        precision: 1,
        name: 'SDK points',
        customCode: 'SPT',
      },
    });
    const clash = client.createCustomCurrency({ id: 'sdk-points', name: 'Other', precision: 1, customCode: 'SPT' });
    await expect(clash).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('syncs a bank feed through a custom link and reconciles it, typed and runtime, then deletes a stray transaction', async () => {
    const client = sdkClient();
    const link = await client.createCustomLink({ name: 'SDK bank', ik: 'sdk-bank' });
    expect(link.createCustomLink).toMatchObject({
      __typename: 'CreateCustomLinkResult',
      isIkReplay: false,
      link: { name: 'SDK bank' },
    });
    const linkId = link.createCustomLink.__typename === 'CreateCustomLinkResult' ? link.createCustomLink.link.id : '';
    const accounts = await client.syncCustomAccounts({ linkId, accounts: [{ externalId: 'ops', name: 'Operating' }] });
    expect(accounts.syncCustomAccounts).toMatchObject({
      __typename: 'SyncCustomAccountsResult',
      accounts: [{ externalId: 'ops', name: 'Operating', currency: { code: 'USD', customCurrencyId: null } }],
    });
    const externalAccountId =
      accounts.syncCustomAccounts.__typename === 'SyncCustomAccountsResult'
        ? accounts.syncCustomAccounts.accounts[0].id
        : '';

    await client.storeSchema({
      schema: {
        key: 'sdk-bank',
        chartOfAccounts: {
          accounts: [
            { key: 'bank', type: LedgerAccountTypes.Asset, linkedAccount: { linkId, externalId: 'ops' } },
            { key: 'sales', type: LedgerAccountTypes.Income },
            { key: 'fees', type: LedgerAccountTypes.Expense },
          ],
        },
        ledgerEntries: {
          types: [
            {
              type: 'sale',
              lines: [
                { key: 'cash', account: { path: 'bank' }, amount: '{{amount}}', tx: { externalId: '{{tx}}' } },
                { key: 'income', account: { path: 'sales' }, amount: '{{amount}}' },
              ],
            },
            { type: 'bank_adjustment' },
          ],
        },
      },
    });
    await client.createLedger({ ik: 'sdk-bank', ledger: { name: 'SDK bank' }, schemaKey: 'sdk-bank' });

    const synced = await client.syncCustomTxs({
      linkId,
      txs: [
        {
          externalId: 't1',
          account: { id: externalAccountId },
          amount: '5000',
          description: 'Card sales',
          posted: '2026-06-01T12:00:00Z',
        },
        {
          externalId: 't2',
          account: { linkId, externalId: 'ops' },
          amount: '-25',
          description: 'Monthly fee',
          posted: '2026-06-02T12:00:00Z',
        },
        {
          externalId: 't3',
          account: { id: externalAccountId },
          amount: '1',
          description: 'Stray',
          posted: '2026-06-03T12:00:00Z',
        },
      ],
    });
    expect(synced.syncCustomTxs).toMatchObject({
      __typename: 'SyncCustomTxsResult',
      txs: [
        {
          __typename: 'Tx',
          linkId,
          externalId: 't1',
          externalAccountId,
          amount: '5000',
          description: 'Card sales',
          posted: '2026-06-01T12:00:00.000Z',
        },
        { externalId: 't2', amount: '-25' },
        { externalId: 't3' },
      ],
    });
    const txIds =
      synced.syncCustomTxs.__typename === 'SyncCustomTxsResult' ? synced.syncCustomTxs.txs.map((tx) => tx.id) : [];

    const typed = await client.reconcileTx({
      ledgerIk: 'sdk-bank',
      type: 'sale',
      parameters: { amount: '5000', tx: 't1' },
    });
    expect(typed.reconcileTx).toMatchObject({
      __typename: 'ReconcileTxResult',
      entry: { posted: '2026-06-01T12:00:00.000Z', date: '2026-06-01' },
      lines: [
        { amount: '5000', account: { path: 'bank' }, externalTxId: 't1' },
        { amount: '5000', account: { path: 'sales' }, externalTxId: null },
      ],
    });
    const runtime = await client.reconcileTxRuntime({
      ledgerIk: 'sdk-bank',
      type: 'bank_adjustment',
      lines: [
        { account: { path: 'bank' }, amount: '-25', tx: { id: txIds[1] } },
        { account: { path: 'fees' }, amount: '25' },
      ],
    });
    expect(runtime.reconcileTx).toMatchObject({
      __typename: 'ReconcileTxResult',
      entry: { posted: '2026-06-02T12:00:00.000Z' },
      lines: [{ externalTxId: 't2' }, {}],
    });
    const twice = client.reconcileTx({
      ledgerIk: 'sdk-bank',
      type: 'sale',
      parameters: { amount: '5000', tx: 't1' },
      tags: [{ key: 'again', value: 'yes' }],
    });
    await expect(twice).rejects.toMatchObject({ code: 'tx_already_reconciled' });

    const deleted = await client.deleteCustomTxs({ txs: [txIds[2]] });
    expect(deleted.deleteCustomTxs).toMatchObject({
      __typename: 'DeleteCustomTxsResult',
      txs: [{ tx: { id: txIds[2], externalId: 't3', deletedAt: expect.any(String) } }],
    });
    const reconciledDelete = client.deleteCustomTxs({ txs: [txIds[0]] });
    await expect(reconciledDelete).rejects.toMatchObject({ code: 'tx_already_reconciled' });
    expect(
      (await client.getLedgerAccountBalance({ path: 'bank', ledgerIk: 'sdk-bank' })).ledgerAccount?.ownBalance,
    ).toBe('4975');
  });

  it('reads entry and account data migrations after a schema version supersedes an entry type and archives an account', async () => {
    const client = sdkClient();
    const accounts = (legacy: boolean) => [
      { key: 'bank', type: LedgerAccountTypes.Asset },
      { key: 'users', type: LedgerAccountTypes.Liability },
      { key: 'old-fees', type: LedgerAccountTypes.Income, ...(legacy ? { status: 'archived' as never } : {}) },
    ];
    const deposit = (typeVersion: number) => ({
      type: 'deposit',
      typeVersion,
      lines: [
        { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' },
        { key: 'user', account: { path: 'users' }, amount: '{{amount}}' },
      ],
    });
    const fee = {
      type: 'fee',
      lines: [
        { key: 'bank', account: { path: 'bank' }, amount: '{{fee}}' },
        { key: 'fee', account: { path: 'old-fees' }, amount: '{{fee}}' },
      ],
    };
    await client.storeSchema({
      schema: {
        key: 'sdk-versions',
        chartOfAccounts: { accounts: accounts(false) },
        ledgerEntries: { types: [deposit(1), fee] },
      },
    });
    await client.createLedger({ ik: 'sdk-versions', ledger: { name: 'Versions' }, schemaKey: 'sdk-versions' });
    await client.addLedgerEntry({
      ik: 'v1-a',
      ledgerIk: 'sdk-versions',
      type: 'deposit',
      typeVersion: 1,
      parameters: { amount: '10' },
    });
    await client.addLedgerEntry({
      ik: 'v1-b',
      ledgerIk: 'sdk-versions',
      type: 'deposit',
      typeVersion: 1,
      parameters: { amount: '20' },
    });
    await client.addLedgerEntry({ ik: 'fee-a', ledgerIk: 'sdk-versions', type: 'fee', parameters: { fee: '2' } });
    await client.storeSchema({
      schema: {
        key: 'sdk-versions',
        chartOfAccounts: { accounts: accounts(true) },
        ledgerEntries: { types: [deposit(1), deposit(2), fee] },
      },
    });

    const entryMigrations = await client.getEntryDataMigrations({ ledgerIk: 'sdk-versions' });
    expect(entryMigrations.ledger?.ledgerEntryDataMigrations.nodes).toEqual([
      expect.objectContaining({
        entryType: 'deposit',
        typeVersion: 1,
        status: 'active',
        currentMigration: { schemaVersion: 2, status: 'active' },
        history: expect.objectContaining({ nodes: [{ schemaVersion: 2, status: 'active' }] }),
      }),
    ]);
    expect(
      entryMigrations.ledger?.ledgerEntryDataMigrations.nodes[0].ledgerEntries.nodes.map((entry) => entry.parameters),
    ).toEqual([{ amount: '20' }, { amount: '10' }]);
    const toMigrate = await client.getEntriesToMigrateForLedgerEntryDataMigration({
      ledgerIk: 'sdk-versions',
      entryType: 'deposit',
      typeVersion: '1',
      first: 1,
    });
    const page = toMigrate.ledger?.ledgerEntryDataMigrations.nodes[0].ledgerEntries;
    expect(
      page?.nodes.map((entry) => [entry.ik, entry.typeVersion, entry.lines.nodes.map((line) => line.amount)]),
    ).toEqual([['v1-b', 1, ['20', '20']]]);
    expect(page?.pageInfo.hasNextPage).toBe(true);

    const accountMigrations = await client.getAccountDataMigrations({ ledgerIk: 'sdk-versions' });
    expect(accountMigrations.ledger?.ledgerAccountDataMigrations.nodes).toEqual([
      expect.objectContaining({ accountPath: 'old-fees', status: 'active' }),
    ]);
    const accountEntries = await client.getEntriesToMigrateForLedgerAccountDataMigration({
      ledgerIk: 'sdk-versions',
      accountPath: 'old-fees',
    });
    expect(
      accountEntries.ledger?.ledgerAccountDataMigrations.nodes[0].ledgerEntries.nodes.map((entry) => entry.ik),
    ).toEqual(['fee-a']);
  });
});
