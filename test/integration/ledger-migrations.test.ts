import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What schema changes leave behind (ledger migrations, entry and account data migrations),
// entry stats, and the experimental createPayment.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) => (await gql(server.baseUrl, alice.token, query, variables)).body;
const STORE = `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }`;
const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) {
  __typename ... on AddLedgerEntryResult { entry { id } } ... on BadRequestError { code message } } }`;

const chart = (legacyStatus?: string) => ({ accounts: [
  { key: 'bank', type: 'asset' }, { key: 'users', type: 'liability', template: true, children: [{ key: 'available' }] },
  { key: 'legacy', type: 'income', ...(legacyStatus ? { status: legacyStatus } : {}) }, { key: 'income', type: 'income' },
] });
const transfer = (typeVersion: number, description: string) => ({ type: 'deposit', typeVersion, description, lines: [
  { key: 'in', account: { path: 'bank' }, amount: '{{amount}}' },
  { key: 'owed', account: { path: 'users:{{user}}/available' }, amount: '{{amount}}' }] });
const fee = { type: 'fee', lines: [{ key: 'in', account: { path: 'bank' }, amount: '{{fee}}' }, { key: 'earned', account: { path: 'legacy' }, amount: '{{fee}}' }] };
const settle = { processing_to_settled: { lines: [
  { key: 'cash', account: { path: 'bank' }, amount: '{{price}}' }, { key: 'sale', account: { path: 'income' }, amount: '{{price}}' }] } };
const payments = { types: [
  { type: 'checkout', typeVersion: 1, status: 'active', payment: { amount: '{{price}}', direction: 'payin' },
    accounting: settle },
  { type: 'checkout', typeVersion: 2, status: 'active', payment: { amount: '{{price}} + {{tip}}', direction: 'payin' },
    accounting: settle },
] };

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('migration reads', () => {
  it('records each ledger\'s move to every schema version, and the entries and accounts a version leaves to migrate', async () => {
    expect((await call(STORE, { schema: { key: 'shop', chartOfAccounts: chart(), ledgerEntries: { types: [transfer(1, 'v1'), fee] } } })).data.storeSchema.__typename).toBe('StoreSchemaResult');
    await call('mutation { createLedger(ik: "shop-1", ledger: { name: "Shop" }, schema: { key: "shop" }) { __typename } }');
    const ids: string[] = [];
    for (const [ik, user] of [['e1', 'ann'], ['e2', 'ben'], ['e3', 'cat']]) {
      const posted = await call(POST, { ik, entry: { ledger: { ik: 'shop-1' }, type: 'deposit', typeVersion: 1, parameters: { amount: '100', user } } });
      ids.push(posted.data.addLedgerEntry.entry.id);
    }
    await call(POST, { ik: 'f1', entry: { ledger: { ik: 'shop-1' }, type: 'fee', parameters: { fee: '3' } } });

    // Version 2 adds deposit v2 (superseding v1) and archives the legacy income account.
    expect((await call(STORE, { schema: { key: 'shop', chartOfAccounts: chart('archived'), ledgerEntries: { types: [transfer(1, 'v1'), transfer(2, 'v2'), fee] } } })).data.storeSchema.__typename).toBe('StoreSchemaResult');

    const read = async () => (await call(`{ ledger(ledger: { ik: "shop-1" }) {
      migrations { nodes { status schemaVersion { version } ledger { ik } } }
      ledgerEntryDataMigrations { nodes { entryType typeVersion status currentMigration { schemaVersion status } history { nodes { schemaVersion status } }
        ledgerEntries { nodes { id } } } }
      ledgerAccountDataMigrations { nodes { accountPath status ledgerEntries { nodes { type } } } }
      entryStats { nodes { type typeVersion count reversalsCount netCount ledgerId schemaKey } } } }`)).data.ledger;
    const before = await read();
    expect(before.migrations.nodes).toEqual([
      { status: 'completed', schemaVersion: { version: 2 }, ledger: { ik: 'shop-1' } },
      { status: 'completed', schemaVersion: { version: 1 }, ledger: { ik: 'shop-1' } },
    ]);
    expect(before.ledgerEntryDataMigrations.nodes).toEqual([{
      entryType: 'deposit', typeVersion: 1, status: 'active', currentMigration: { schemaVersion: 2, status: 'active' },
      history: { nodes: [{ schemaVersion: 2, status: 'active' }] }, ledgerEntries: { nodes: [...ids].reverse().map((id) => ({ id })) },
    }]);
    expect(before.ledgerAccountDataMigrations.nodes).toEqual([{ accountPath: 'legacy', status: 'active', ledgerEntries: { nodes: [{ type: 'fee' }] } }]);

    // Migrating every old entry to v2 leaves nothing to do.
    for (const [index, id] of ids.entries()) {
      const migrated = await call(`mutation($id: ID!, $entry: LedgerEntryInput!) { migrateLedgerEntry(input: { id: $id, newLedgerEntry: $entry }) { __typename } }`, {
        id, entry: { ledger: { ik: 'shop-1' }, type: 'deposit', typeVersion: 2, parameters: { amount: '100', user: ['ann', 'ben', 'cat'][index] } },
      });
      expect(migrated.data.migrateLedgerEntry.__typename).toBe('MigrateLedgerEntryResult');
    }
    const after = await read();
    expect(after.ledgerEntryDataMigrations.nodes[0]).toMatchObject({ status: 'inactive', currentMigration: { status: 'inactive' }, ledgerEntries: { nodes: [] } });
    expect(after.entryStats.nodes).toEqual([
      { type: 'deposit', typeVersion: 1, count: '6', reversalsCount: '3', netCount: '3', ledgerId: expect.any(String), schemaKey: 'shop' },
      { type: 'deposit', typeVersion: 2, count: '3', reversalsCount: '0', netCount: '3', ledgerId: expect.any(String), schemaKey: 'shop' },
      { type: 'fee', typeVersion: 1, count: '1', reversalsCount: '0', netCount: '1', ledgerId: expect.any(String), schemaKey: 'shop' },
    ]);
  });

  it('filters data migrations as the SDK does (typeVersion as a string), pages them, and lists a version\'s migrations', async () => {
    const filtered = await call(`{ ledger(ledger: { ik: "shop-1" }) {
      hit: ledgerEntryDataMigrations(filter: { entryType: { equalTo: "deposit" }, typeVersion: { equalTo: "1" } }) { nodes { entryType } }
      miss: ledgerEntryDataMigrations(filter: { typeVersion: { equalTo: "2" } }) { nodes { entryType } }
      inactive: ledgerEntryDataMigrations(filter: { status: inactive }) { nodes { entryType } }
      accounts: ledgerAccountDataMigrations(filter: { accountPath: { in: ["legacy"] } }) { nodes { accountPath } }
      page: ledgerEntryDataMigrations(first: 0) { nodes { entryType } pageInfo { hasNextPage } } } }`);
    expect(filtered.data.ledger).toEqual({
      hit: { nodes: [{ entryType: 'deposit' }] }, miss: { nodes: [] }, inactive: { nodes: [{ entryType: 'deposit' }] },
      accounts: { nodes: [{ accountPath: 'legacy' }] }, page: { nodes: [], pageInfo: { hasNextPage: true } },
    });
    const versions = await call('{ schema(schema: { key: "shop" }) { versions { nodes { version migrations { nodes { ledger { ik } status } } } } } }');
    expect(versions.data.schema.versions.nodes).toEqual([
      { version: 2, migrations: { nodes: [{ ledger: { ik: 'shop-1' }, status: 'completed' }] } },
      { version: 1, migrations: { nodes: [{ ledger: { ik: 'shop-1' }, status: 'completed' }] } },
    ]);
    const tampered = await gql(server.baseUrl, alice.token, '{ ledger(ledger: { ik: "shop-1" }) { migrations(after: "forged") { nodes { status } } } }');
    expect(tampered.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
  });
});

describe('createPayment (experimental)', () => {
  const PAY = `mutation($ik: SafeString!, $ledger: LedgerMatchInput!, $payment: CreatePaymentInput, $amount: Int96) {
    createPayment(ik: $ik, ledger: $ledger, payment: $payment, amount: $amount) {
      __typename ... on Payment { clientSecret status } ... on BadRequestError { code message } } }`;
  const pay = async (variables: Record<string, unknown>) => (await call(PAY, { ledger: { ik: 'pay-1' }, ...variables })).data.createPayment;

  beforeAll(async () => {
    expect((await call(STORE, { schema: { key: 'payments', chartOfAccounts: chart(), payments } })).data.storeSchema.__typename).toBe('StoreSchemaResult');
    await call('mutation { createLedger(ik: "pay-1", ledger: { name: "Payments" }, schema: { key: "payments" }) { __typename } }');
  });

  it('records a payment of a schema payment type (latest active version by default) and replays its ik', async () => {
    const first = await pay({ ik: 'p1', payment: { type: 'checkout', parameters: { price: '1200', tip: '100' } } });
    expect(first).toMatchObject({ __typename: 'Payment', status: 'requires_confirmation', clientSecret: expect.stringMatching(/^pay_[0-9a-z]{26}_secret_/) });
    expect(await pay({ ik: 'p1', payment: { type: 'checkout', parameters: { price: '1200', tip: '100' } } })).toEqual(first);
    expect((await pay({ ik: 'p1', payment: { type: 'checkout', parameters: { price: '1300', tip: '100' } } })).code).toBe('idempotency_key_reused');
    // Version 1 needs no tip: the version chosen decides which parameters the amount uses.
    expect((await pay({ ik: 'p2', payment: { type: 'checkout', typeVersion: 1, parameters: { price: '500' } } })).__typename).toBe('Payment');
    expect((await pay({ ik: 'p3', payment: { type: 'checkout', parameters: { price: '500' } } })).code).toBe('entry_parameters_invalid');
  });

  it('refuses nested parameters, unknown types, both or neither forms, and plain amounts out of range', async () => {
    expect((await pay({ ik: 'n1', payment: { type: 'checkout', parameters: { price: { value: '1' }, tip: '1' } } })).code).toBe('entry_parameters_invalid');
    expect((await pay({ ik: 'n2', payment: { type: 'checkout', parameters: { price: ['1'], tip: '1' } } })).code).toBe('entry_parameters_invalid');
    expect((await pay({ ik: 'n3', payment: { type: 'checkout', parameters: '1' } })).code).toBe('entry_parameters_invalid');
    expect((await pay({ ik: 'n4', payment: { type: 'refund', parameters: {} } })).code).toBe('payment_type_not_found');
    expect((await pay({ ik: 'n5', payment: { type: 'checkout', typeVersion: 9, parameters: {} } })).code).toBe('payment_type_not_found');
    expect((await pay({ ik: 'n6' })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n7', amount: '500', payment: { type: 'checkout', parameters: { price: '1', tip: '1' } } })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n8', amount: '99' })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n9', amount: '10000001' })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'n10', payment: { type: 'checkout', parameters: { price: '-5', tip: '1' } } })).code).toBe('invalid_input_provided');
    expect((await pay({ ik: 'ok', amount: '10000000' })).__typename).toBe('Payment');
    expect((await call(PAY, { ik: 'x', ledger: { ik: 'missing' }, amount: '500' })).data.createPayment.code).toBe('ledger_not_found');
  });
});
