import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema } from 'graphql';
import fs from 'node:fs';
import { resolvers } from '../../src/ledger/resolvers/index.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

const CREATE = `mutation($ik: SafeString!, $ledger: CreateLedgerInput!, $schema: SchemaMatchInput) {
  createLedger(ik: $ik, ledger: $ledger, schema: $schema) {
    __typename
    ... on CreateLedgerResult { isIkReplay ledger { id ik name balanceUTCOffset schema { key } } }
    ... on BadRequestError { code message retryable }
  }
}`;
const GET = `query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { id name } }`;
const RENAME = `mutation($ik: SafeString!, $name: String!) {
  updateLedger(ledger: { ik: $ik }, update: { name: $name }) {
    __typename ... on UpdateLedgerResult { ledger { name } } ... on BadRequestError { code }
  }
}`;
const DELETE = `mutation($ik: SafeString!) {
  deleteLedger(ledger: { ik: $ik }) { __typename ... on DeleteLedgerResult { success } ... on BadRequestError { code retryable } }
}`;

let server: TestServer;
let alice: TestWorkspace;
let bob: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  bob = await server.workspace('Bob');
});
afterAll(() => server?.close());

describe('createLedger', () => {
  it('creates once, replays the same ik and payload, and rejects the same ik with another payload', async () => {
    const variables = { ik: 'replay-me', ledger: { name: 'Replay', balanceUTCOffset: '+05:45' } };
    const first = await gql(server.baseUrl, alice.token, CREATE, variables);
    expect(first.body.data.createLedger).toMatchObject({
      __typename: 'CreateLedgerResult',
      isIkReplay: false,
      ledger: { ik: 'replay-me', balanceUTCOffset: '+05:45' },
    });
    const again = await gql(server.baseUrl, alice.token, CREATE, variables);
    expect(again.body.data.createLedger).toMatchObject({
      isIkReplay: true,
      ledger: { id: first.body.data.createLedger.ledger.id },
    });
    const conflict = await gql(server.baseUrl, alice.token, CREATE, { ...variables, ledger: { name: 'Other' } });
    expect(conflict.body.data.createLedger).toEqual({
      __typename: 'BadRequestError',
      code: 'idempotency_key_reused',
      message: expect.any(String),
      retryable: false,
    });
    const stored = await gql(server.baseUrl, alice.token, GET, { ik: 'replay-me' });
    expect(stored.body.data.ledger.name).toBe('Replay');
    const urn = await gql(
      server.baseUrl,
      alice.token,
      '{ ledger(ledger: { ik: "replay-me" }) { id dashboardUrl workspaceId type } }',
    );
    const { id } = urn.body.data.ledger;
    expect(urn.body.data.ledger).toEqual({
      id,
      dashboardUrl: `${server.baseUrl}/dashboard/ledgers/${id}`,
      workspaceId: alice.workspaceId,
      type: 'double',
    });
  });

  it('answers concurrent creations with one ledger and replays', async () => {
    const variables = { ik: 'race', ledger: { name: 'Race' } };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => gql(server.baseUrl, alice.token, CREATE, variables)),
    );
    const ids = new Set(results.map((r) => r.body.data.createLedger.ledger.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.body.data.createLedger.isIkReplay === false)).toHaveLength(1);
  });

  it('rejects a malformed offset or ik by variable coercion, creating nothing', async () => {
    const badOffset = await gql(server.baseUrl, alice.token, CREATE, {
      ik: 'bad',
      ledger: { name: 'Bad', balanceUTCOffset: '+05:60' },
    });
    expect(badOffset.body.errors?.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'invalid_input_provided',
    ]);
    const badIk = await gql(server.baseUrl, alice.token, CREATE, { ik: 'has/slash', ledger: { name: 'Bad' } });
    expect(badIk.body.errors?.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'invalid_input_provided',
    ]);
    expect((await gql(server.baseUrl, alice.token, GET, { ik: 'bad' })).body.data.ledger).toBeNull();
  });

  it('refuses text PostgreSQL cannot store before the mutation runs, never with an internal error', async () => {
    const result = await gql(server.baseUrl, alice.token, CREATE, { ik: 'nul', ledger: { name: 'bad\u0000name' } });
    expect(result.body.data).toBeUndefined();
    expect(result.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input_provided' });
    expect((await gql(server.baseUrl, alice.token, GET, { ik: 'nul' })).body.data.ledger).toBeNull();
  });

  it('needs an existing schema when one is named', async () => {
    const result = await gql(server.baseUrl, alice.token, CREATE, {
      ik: 'with-schema',
      ledger: { name: 'S' },
      schema: { key: 'nope' },
    });
    expect(result.body.data.createLedger).toMatchObject({ __typename: 'BadRequestError', code: 'schema_not_found' });
  });
});

describe('update and delete', () => {
  it('renames, deletes, and keeps a deleted ik reserved for a grace period', async () => {
    await gql(server.baseUrl, alice.token, CREATE, { ik: 'short-lived', ledger: { name: 'Short' } });
    const renamed = await gql(server.baseUrl, alice.token, RENAME, { ik: 'short-lived', name: 'Renamed' });
    expect(renamed.body.data.updateLedger).toEqual({ __typename: 'UpdateLedgerResult', ledger: { name: 'Renamed' } });
    const deleted = await gql(server.baseUrl, alice.token, DELETE, { ik: 'short-lived' });
    expect(deleted.body.data.deleteLedger).toEqual({ __typename: 'DeleteLedgerResult', success: true });
    expect((await gql(server.baseUrl, alice.token, GET, { ik: 'short-lived' })).body.data.ledger).toBeNull();
    const again = await gql(server.baseUrl, alice.token, DELETE, { ik: 'short-lived' });
    expect(again.body.data.deleteLedger).toEqual({
      __typename: 'BadRequestError',
      code: 'ledger_not_found',
      retryable: false,
    });
    const reuse = await gql(server.baseUrl, alice.token, CREATE, { ik: 'short-lived', ledger: { name: 'Again' } });
    expect(reuse.body.data.createLedger).toMatchObject({ __typename: 'BadRequestError', code: 'ledger_ik_reserved' });
  });
});

describe('tenancy and auth', () => {
  it("never shows or changes another workspace's ledgers", async () => {
    await gql(server.baseUrl, alice.token, CREATE, { ik: 'alice-only', ledger: { name: 'Alice private' } });
    expect((await gql(server.baseUrl, bob.token, GET, { ik: 'alice-only' })).body.data.ledger).toBeNull();
    const list = await gql(server.baseUrl, bob.token, '{ ledgers { nodes { ik } } }');
    expect(list.body.data.ledgers.nodes.map((n: { ik: string }) => n.ik)).not.toContain('alice-only');
    const rename = await gql(server.baseUrl, bob.token, RENAME, { ik: 'alice-only', name: 'Hijacked' });
    expect(rename.body.data.updateLedger).toMatchObject({ code: 'ledger_not_found' });
    const remove = await gql(server.baseUrl, bob.token, DELETE, { ik: 'alice-only' });
    expect(remove.body.data.deleteLedger).toMatchObject({ code: 'ledger_not_found' });
    // Bob may use the same ik for a ledger of his own: iks are per workspace.
    const own = await gql(server.baseUrl, bob.token, CREATE, { ik: 'alice-only', ledger: { name: 'Bob own' } });
    expect(own.body.data.createLedger).toMatchObject({ isIkReplay: false });
    expect((await gql(server.baseUrl, alice.token, GET, { ik: 'alice-only' })).body.data.ledger.name).toBe(
      'Alice private',
    );
  });

  it.each([
    ['no token', undefined],
    ['a malformed token', 'nonsense'],
    ['a forged token', 'tly1.eyJ4Ijp0cnVlfQ.c2lnbmF0dXJl'],
  ])('answers 401 to %s', async (_label, token) => {
    const result = await gql(server.baseUrl, token, '{ workspace { id } }');
    expect(result.status).toBe(401);
    expect(result.body.errors?.[0]).toMatchObject({ extensions: { code: 'unauthorized' } });
  });

  it("returns the caller's workspace", async () => {
    const result = await gql(server.baseUrl, alice.token, '{ workspace { id name } }');
    expect(result.body.data.workspace).toEqual({ id: alice.workspaceId, name: 'Alice' });
  });
});

describe('ledgers pagination', () => {
  it('pages newest first with cursors, forward and backward', async () => {
    const carol = await server.workspace('Carol');
    for (const ik of ['p1', 'p2', 'p3', 'p4', 'p5']) {
      await gql(server.baseUrl, carol.token, CREATE, { ik, ledger: { name: ik } });
    }
    const page = `query($first: Int, $after: String, $last: Int, $before: String) {
      ledgers(first: $first, after: $after, last: $last, before: $before) {
        nodes { ik } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }`;
    const one = (await gql(server.baseUrl, carol.token, page, { first: 2 })).body.data.ledgers;
    expect(one.nodes.map((n: { ik: string }) => n.ik)).toEqual(['p5', 'p4']);
    expect(one.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const two = (await gql(server.baseUrl, carol.token, page, { first: 2, after: one.pageInfo.endCursor })).body.data
      .ledgers;
    expect(two.nodes.map((n: { ik: string }) => n.ik)).toEqual(['p3', 'p2']);
    const back = (await gql(server.baseUrl, carol.token, page, { last: 2, before: two.pageInfo.startCursor })).body.data
      .ledgers;
    expect(back.nodes.map((n: { ik: string }) => n.ik)).toEqual(['p5', 'p4']);
    const tooBig = await gql(server.baseUrl, carol.token, page, { first: 201 });
    expect(tooBig.body.errors?.[0]).toMatchObject({ extensions: { code: 'invalid_input_provided' } });
  });

  it('refuses cursors that were tampered with, truncated, or issued for another list or workspace', async () => {
    const dave = await server.workspace('Dave');
    for (const ik of ['c1', 'c2']) await gql(server.baseUrl, dave.token, CREATE, { ik, ledger: { name: ik } });
    await gql(
      server.baseUrl,
      dave.token,
      `mutation { storeSchema(schema: { key: "s", chartOfAccounts: { accounts: [{ key: "cash", type: asset }] } }) { __typename } }`,
    );
    const ledgerCursor = (await gql(server.baseUrl, dave.token, '{ ledgers(first: 1) { pageInfo { endCursor } } }'))
      .body.data.ledgers.pageInfo.endCursor as string;
    const schemaCursor = (await gql(server.baseUrl, dave.token, '{ schemas(first: 1) { pageInfo { endCursor } } }'))
      .body.data.schemas.pageInfo.endCursor as string;
    const [payload, signature] = ledgerCursor.split('.');
    const forged = Buffer.from(JSON.stringify(['not a time', 'led_x'])).toString('base64url');
    const ledgersAfter = 'query($after: String) { ledgers(after: $after) { nodes { ik } } }';
    const versionsAfter =
      'query($after: String) { schema(schema: { key: "s" }) { versions(after: $after) { nodes { version } } } }';
    const cases: [string, string, string][] = [
      ['tampered', ledgersAfter, `${forged}.${signature}`],
      ['truncated', ledgersAfter, ledgerCursor.slice(0, -4)],
      ['unsigned', ledgersAfter, payload],
      ['from another list', ledgersAfter, schemaCursor],
      ['a ledger cursor on schema versions', versionsAfter, ledgerCursor],
    ];
    for (const [label, query, after] of cases) {
      const result = await gql(server.baseUrl, dave.token, query, { after });
      expect(result.status, label).toBe(200);
      expect(result.body.errors?.[0]?.extensions?.code, label).toBe('invalid_input_provided');
    }
    const foreign = await gql(server.baseUrl, alice.token, ledgersAfter, { after: ledgerCursor });
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
    const own = await gql(server.baseUrl, dave.token, ledgersAfter, { after: ledgerCursor });
    expect(own.body.data.ledgers.nodes).toEqual([{ ik: 'c1' }]);
  });
});

describe('served fields', () => {
  it('every root field of the contract has a resolver: links and custom links answer real data', async () => {
    const sdl = buildSchema(fs.readFileSync(new URL('../../spec/ledger.graphql', import.meta.url), 'utf8'));
    const roots = { Query: sdl.getQueryType()!, Mutation: sdl.getMutationType()! };
    const unserved = (['Query', 'Mutation'] as const).flatMap((type) =>
      Object.keys(roots[type].getFields())
        .filter((field) => field !== '_empty' && !(field in (resolvers[type] ?? {})))
        .map((field) => `${type}.${field}`),
    );
    expect(unserved).toEqual([]);
    const created = await gql(
      server.baseUrl,
      alice.token,
      'mutation { createCustomLink(ik: "served", name: "Served") { __typename ... on CreateCustomLinkResult { link { id name } } } }',
    );
    expect(created.body.data.createCustomLink).toMatchObject({
      __typename: 'CreateCustomLinkResult',
      link: { name: 'Served' },
    });
    const query = await gql(server.baseUrl, alice.token, '{ links { nodes { id name } } }');
    expect(query.body.data.links.nodes).toContainEqual(created.body.data.createCustomLink.link);
  });
});
