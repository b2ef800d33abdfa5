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

  it('posts typed and runtime entries, reads them, their lines and balances, reverses, migrates and tags them', async () => {
    const client = sdkClient();
    await client.storeSchema({ schema: {
      key: 'sdk-wallets',
      chartOfAccounts: {
        defaultCurrency: { code: 'USD' as never },
        accounts: [
          { key: 'bank', type: LedgerAccountTypes.Asset },
          { key: 'users', type: LedgerAccountTypes.Liability, template: true, children: [{ key: 'wallet' }] },
          { key: 'fees', type: LedgerAccountTypes.Income },
        ],
      },
      ledgerEntries: { types: [
        { type: 'deposit', description: 'Deposit for {{user}}', lines: [
          { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' },
          { key: 'wallet', account: { path: 'users:{{user}}/wallet' }, amount: '{{amount}}' },
        ] },
        { type: 'adjustment' },
      ] },
    } });
    await client.createLedger({ ik: 'sdk-wallets', ledger: { name: 'Wallets' }, schemaKey: 'sdk-wallets' });

    const typed = await client.addLedgerEntry({ ik: 'dep-1', ledgerIk: 'sdk-wallets', type: 'deposit', parameters: { user: 'ann', amount: '1200' }, groups: [{ key: 'day', value: 'd1' }] });
    expect(typed.addLedgerEntry).toMatchObject({
      __typename: 'AddLedgerEntryResult', isIkReplay: false,
      entry: { type: 'deposit', ik: 'dep-1' }, lines: [{ amount: '1200', account: { path: 'bank' } }, { amount: '1200', account: { path: 'users:ann/wallet' } }],
    });
    const runtime = await client.addLedgerEntryRuntime({ ik: 'adj-1', ledgerIk: 'sdk-wallets', type: 'adjustment', lines: [
      { account: { path: 'users:ann/wallet' }, amount: '-200' }, { account: { path: 'fees' }, amount: '200' },
    ], groups: [{ key: 'day', value: 'd1' }] });
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
    expect(balances.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'fees')).toMatchObject({ ownBalance: '200', balance: '200' });
    const multi = await client.listMultiCurrencyLedgerAccountBalances({ ledgerIk: 'sdk-wallets' });
    expect(multi.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'bank')?.balances.nodes).toEqual([{ currency: { code: 'USD', customCurrencyId: null }, amount: '1200' }]);
    const group = await client.listLedgerEntryGroupBalances({ ledgerIk: 'sdk-wallets', groupKey: 'day', groupValue: 'd1' });
    expect(group.ledgerEntryGroup?.balances.nodes.map((node) => [node.account.path, node.ownBalance])).toEqual([['bank', '1200'], ['fees', '200'], ['users:ann/wallet', '1000']]);

    const tagged = await client.updateLedgerEntry({ entryIk: 'dep-1', ledgerIk: 'sdk-wallets', update: { tags: [{ key: 'source', value: 'sdk' }] } });
    expect(tagged.updateLedgerEntry).toMatchObject({ __typename: 'UpdateLedgerEntryResult', entry: { tags: [{ key: 'source', value: 'sdk' }] } });
    const migrated = await client.migrateLedgerEntry({ id: typed.addLedgerEntry.__typename === 'AddLedgerEntryResult' ? typed.addLedgerEntry.entry.id : '', newLedgerEntry: {
      ledger: { ik: 'sdk-wallets' }, type: 'deposit', parameters: { user: 'ann', amount: '1500' },
    } });
    expect(migrated.migrateLedgerEntry).toMatchObject({ __typename: 'MigrateLedgerEntryResult', isIkReplay: false, newLedgerEntry: { ik: 'dep-1' } });
    expect((await client.getLedgerAccountBalance({ path: 'users:ann/wallet', ledgerIk: 'sdk-wallets' })).ledgerAccount?.ownBalance).toBe('1300');
    const reversed = await client.reverseLedgerEntry({ id: runtime.addLedgerEntry.__typename === 'AddLedgerEntryResult' ? runtime.addLedgerEntry.entry.id : '' });
    expect(reversed.reverseLedgerEntry).toMatchObject({ __typename: 'ReverseLedgerEntryResult', isIkReplay: false, reversingLedgerEntry: { ik: 'adj-1', hidden: true } });
    expect((await client.getLedgerAccountBalance({ path: 'users:ann/wallet', ledgerIk: 'sdk-wallets' })).ledgerAccount?.ownBalance).toBe('1500');

    const refused = client.deleteSchema({ schema: { key: 'sdk-wallets' } });
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toMatchObject({ code: 'schema_in_use' });
  });
  it('reads balances at a moment through every balance method that takes balanceAt, at the ledger offset', async () => {
    const client = sdkClient();
    await client.storeSchema({ schema: {
      key: 'sdk-history',
      chartOfAccounts: {
        defaultCurrency: { code: 'INR' as never },
        accounts: [{ key: 'bank', type: LedgerAccountTypes.Asset }, { key: 'users', type: LedgerAccountTypes.Liability, children: [{ key: 'ann' }] }],
      },
      ledgerEntries: { types: [{ type: 'deposit', lines: [
        { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' }, { key: 'ann', account: { path: 'users/ann' }, amount: '{{amount}}' },
      ] }] },
    } });
    await client.createLedger({ ik: 'sdk-history', ledger: { name: 'History', balanceUTCOffset: '+05:30' }, schemaKey: 'sdk-history' });
    // 18:45Z on 31 January is 00:15 on 1 February at +05:30.
    await client.addLedgerEntry({ ik: 'jan', ledgerIk: 'sdk-history', type: 'deposit', parameters: { amount: '100' }, posted: '2026-01-15T00:00:00Z' });
    await client.addLedgerEntry({ ik: 'feb', ledgerIk: 'sdk-history', type: 'deposit', parameters: { amount: '20' }, posted: '2026-01-31T18:45:00Z' });
    await client.addLedgerEntry({ ik: 'now', ledgerIk: 'sdk-history', type: 'deposit', parameters: { amount: '3' } });

    const own = await client.getLedgerAccountBalance({ path: 'users/ann', ledgerIk: 'sdk-history', balanceAt: '2026-01' });
    expect(own.ledgerAccount?.ownBalance).toBe('100');
    const rollup = await client.GetLedgerAccountBalanceWithChildRollup({ path: 'users', ledgerIk: 'sdk-history', balanceAt: '2026-02-01' });
    expect(rollup.ledgerAccount).toMatchObject({ path: 'users', balance: '120' });
    const listed = await client.listLedgerAccountBalances({ ledgerIk: 'sdk-history', balanceAt: '2026-01-31T23', balanceCurrency: { code: 'INR' as never } });
    expect(listed.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'bank')).toMatchObject({ ownBalance: '100', balance: '100' });
    const multi = await client.listMultiCurrencyLedgerAccountBalances({ ledgerIk: 'sdk-history', balanceAt: '2026-02' });
    expect(multi.ledger!.ledgerAccounts.nodes.find((node) => node.path === 'bank')?.balances.nodes).toEqual([{ currency: { code: 'INR', customCurrencyId: null }, amount: '120' }]);
    const latest = await client.getLedgerAccountBalance({ path: 'bank', ledgerIk: 'sdk-history' });
    expect(latest.ledgerAccount?.ownBalance).toBe('123');
  });
});
