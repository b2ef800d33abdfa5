import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What schema changes leave behind: each ledger's move to every schema version, the entries and
// accounts a new version leaves to migrate, and entry stats by type version.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, alice.token, query, variables)).body;
const STORE = `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }`;
const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) {
  __typename ... on AddLedgerEntryResult { entry { id } } ... on BadRequestError { code message } } }`;

const chart = (legacyStatus?: string) => ({
  accounts: [
    { key: 'bank', type: 'asset' },
    { key: 'users', type: 'liability', template: true, children: [{ key: 'available' }] },
    { key: 'legacy', type: 'income', ...(legacyStatus ? { status: legacyStatus } : {}) },
    { key: 'income', type: 'income' },
  ],
});
const transfer = (typeVersion: number, description: string) => ({
  type: 'deposit',
  typeVersion,
  description,
  lines: [
    { key: 'in', account: { path: 'bank' }, amount: '{{amount}}' },
    { key: 'owed', account: { path: 'users:{{user}}/available' }, amount: '{{amount}}' },
  ],
});
const fee = {
  type: 'fee',
  lines: [
    { key: 'in', account: { path: 'bank' }, amount: '{{fee}}' },
    { key: 'earned', account: { path: 'legacy' }, amount: '{{fee}}' },
  ],
};

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('migration reads', () => {
  it("records each ledger's move to every schema version, and the entries and accounts a version leaves to migrate", async () => {
    expect(
      (
        await call(STORE, {
          schema: { key: 'shop', chartOfAccounts: chart(), ledgerEntries: { types: [transfer(1, 'v1'), fee] } },
        })
      ).data.storeSchema.__typename,
    ).toBe('StoreSchemaResult');
    await call(
      'mutation { createLedger(ik: "shop-1", ledger: { name: "Shop" }, schema: { key: "shop" }) { __typename } }',
    );
    const ids: string[] = [];
    for (const [ik, user] of [
      ['e1', 'ann'],
      ['e2', 'ben'],
      ['e3', 'cat'],
    ]) {
      const posted = await call(POST, {
        ik,
        entry: { ledger: { ik: 'shop-1' }, type: 'deposit', typeVersion: 1, parameters: { amount: '100', user } },
      });
      ids.push(posted.data.addLedgerEntry.entry.id);
    }
    await call(POST, { ik: 'f1', entry: { ledger: { ik: 'shop-1' }, type: 'fee', parameters: { fee: '3' } } });

    // Version 2 adds deposit v2 (superseding v1) and archives the legacy income account.
    expect(
      (
        await call(STORE, {
          schema: {
            key: 'shop',
            chartOfAccounts: chart('archived'),
            ledgerEntries: { types: [transfer(1, 'v1'), transfer(2, 'v2'), fee] },
          },
        })
      ).data.storeSchema.__typename,
    ).toBe('StoreSchemaResult');

    const read = async () =>
      (
        await call(`{ ledger(ledger: { ik: "shop-1" }) {
      migrations { nodes { status schemaVersion { version } ledger { ik } } }
      ledgerEntryDataMigrations { nodes { entryType typeVersion status currentMigration { schemaVersion status }
        history { nodes { schemaVersion status } }
        ledgerEntries { nodes { id } } } }
      ledgerAccountDataMigrations { nodes { accountPath status ledgerEntries { nodes { type } } } }
      entryStats { nodes { type typeVersion count reversalsCount netCount ledgerId schemaKey } } } }`)
      ).data.ledger;
    const before = await read();
    expect(before.migrations.nodes).toEqual([
      { status: 'completed', schemaVersion: { version: 2 }, ledger: { ik: 'shop-1' } },
      { status: 'completed', schemaVersion: { version: 1 }, ledger: { ik: 'shop-1' } },
    ]);
    expect(before.ledgerEntryDataMigrations.nodes).toEqual([
      {
        entryType: 'deposit',
        typeVersion: 1,
        status: 'active',
        currentMigration: { schemaVersion: 2, status: 'active' },
        history: { nodes: [{ schemaVersion: 2, status: 'active' }] },
        ledgerEntries: { nodes: [...ids].reverse().map((id) => ({ id })) },
      },
    ]);
    expect(before.ledgerAccountDataMigrations.nodes).toEqual([
      { accountPath: 'legacy', status: 'active', ledgerEntries: { nodes: [{ type: 'fee' }] } },
    ]);

    // Migrating every old entry to v2 leaves nothing to do.
    for (const [index, id] of ids.entries()) {
      const migrated = await call(
        `mutation($id: ID!, $entry: LedgerEntryInput!) {
        migrateLedgerEntry(input: { id: $id, newLedgerEntry: $entry }) { __typename } }`,
        {
          id,
          entry: {
            ledger: { ik: 'shop-1' },
            type: 'deposit',
            typeVersion: 2,
            parameters: { amount: '100', user: ['ann', 'ben', 'cat'][index] },
          },
        },
      );
      expect(migrated.data.migrateLedgerEntry.__typename).toBe('MigrateLedgerEntryResult');
    }
    const after = await read();
    expect(after.ledgerEntryDataMigrations.nodes[0]).toMatchObject({
      status: 'inactive',
      currentMigration: { status: 'inactive' },
      ledgerEntries: { nodes: [] },
    });
    expect(after.entryStats.nodes).toEqual([
      {
        type: 'deposit',
        typeVersion: 1,
        count: '6',
        reversalsCount: '3',
        netCount: '3',
        ledgerId: expect.any(String),
        schemaKey: 'shop',
      },
      {
        type: 'deposit',
        typeVersion: 2,
        count: '3',
        reversalsCount: '0',
        netCount: '3',
        ledgerId: expect.any(String),
        schemaKey: 'shop',
      },
      {
        type: 'fee',
        typeVersion: 1,
        count: '1',
        reversalsCount: '0',
        netCount: '1',
        ledgerId: expect.any(String),
        schemaKey: 'shop',
      },
    ]);
  });

  it("filters data migrations as the SDK does (typeVersion as a string), pages them, and lists a version's migrations", async () => {
    const filtered = await call(`{ ledger(ledger: { ik: "shop-1" }) {
      hit: ledgerEntryDataMigrations(filter: { entryType: { equalTo: "deposit" }, typeVersion: { equalTo: "1" } }) { nodes { entryType } }
      miss: ledgerEntryDataMigrations(filter: { typeVersion: { equalTo: "2" } }) { nodes { entryType } }
      inactive: ledgerEntryDataMigrations(filter: { status: inactive }) { nodes { entryType } }
      accounts: ledgerAccountDataMigrations(filter: { accountPath: { in: ["legacy"] } }) { nodes { accountPath } }
      page: ledgerEntryDataMigrations(first: 0) { nodes { entryType } pageInfo { hasNextPage } } } }`);
    expect(filtered.data.ledger).toEqual({
      hit: { nodes: [{ entryType: 'deposit' }] },
      miss: { nodes: [] },
      inactive: { nodes: [{ entryType: 'deposit' }] },
      accounts: { nodes: [{ accountPath: 'legacy' }] },
      page: { nodes: [], pageInfo: { hasNextPage: true } },
    });
    const versions = await call(
      '{ schema(schema: { key: "shop" }) { versions { nodes { version migrations { nodes { ledger { ik } status } } } } } }',
    );
    expect(versions.data.schema.versions.nodes).toEqual([
      { version: 2, migrations: { nodes: [{ ledger: { ik: 'shop-1' }, status: 'completed' }] } },
      { version: 1, migrations: { nodes: [{ ledger: { ik: 'shop-1' }, status: 'completed' }] } },
    ]);
    const tampered = await gql(
      server.baseUrl,
      alice.token,
      '{ ledger(ledger: { ik: "shop-1" }) { migrations(after: "forged") { nodes { status } } } }',
    );
    expect(tampered.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
  });
});
