import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS as DOCUMENT_LIMITS } from '../../src/ledger/graphql/documentLimits.js';
import { gql } from '../support/graphql.js';
import { ATTACKS } from '../support/graphqlAttacks.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

let server: TestServer;
let alice: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('document limits', () => {
  it.each([
    ['many aliases of a list field', ATTACKS.aliases, 'aliases'],
    ['aliases of nested lists, each under the alias limit', ATTACKS.nestedAliases, 'cost'],
    ['fragments that fan out, each spreading the next twice', ATTACKS.fanOut, 'cost'],
    ['nested fragments that fan out through lists', ATTACKS.nestedFanOut, 'depth'],
    ['deep nesting', ATTACKS.depth, 'depth'],
    ['many directives', ATTACKS.directives, 'directives'],
    ['too many tokens', ATTACKS.tokens, 'tokens'],
  ])('refuses %s with query_too_complex naming the limit', async (_label, query, limit) => {
    const answer = await gql(server.baseUrl, alice.token, query);
    expect(answer.body.data).toBeUndefined();
    for (const error of answer.body.errors!) expect(error.extensions.code).toBe('query_too_complex');
    const named = answer.body.errors!.find(
      (error: { extensions: { limit: string } }) => error.extensions.limit === limit,
    );
    expect(named?.extensions).toMatchObject({ max: DOCUMENT_LIMITS[limit as keyof typeof DOCUMENT_LIMITS] });
    expect(named?.message).toContain(`limit ${limit}`);
  });

  it('answers a dashboard reading four balances of each of 50 accounts in one document', async () => {
    await gql(
      server.baseUrl,
      alice.token,
      'mutation { createLedger(ik: "dash", ledger: { name: "Dashboard" }) { __typename } }',
    );
    const accounts = range(50)
      .map((i) => `{ ik: "a${i}", name: "A${i}", type: asset }`)
      .join(', ');
    await gql(
      server.baseUrl,
      alice.token,
      `mutation { createLedgerAccounts(ledger: { ik: "dash" }, ledgerAccounts: [${accounts}]) { __typename } }`,
    );
    const query = `query Dashboard { ${range(50)
      .map(
        (i) => `a${i}: ledgerAccount(ledgerAccount: { path: "a${i}", ledger: { ik: "dash" } }) {
      own: ownBalance children: childBalance total: balance lastMonth: balance(at: "2026-10") }`,
      )
      .join(' ')} }`;
    const answer = await gql(server.baseUrl, alice.token, query);
    expect(answer.body.errors).toBeUndefined();
    expect(Object.keys(answer.body.data)).toHaveLength(50);
    expect(answer.body.data.a49).toEqual({ own: '0', children: '0', total: '0', lastMonth: '0' });
  });

  it('bounds the list items of one request even when page sizes come in variables', async () => {
    await gql(
      server.baseUrl,
      alice.token,
      'mutation { storeSchema(schema: { key: "s", chartOfAccounts: { accounts: [{ key: "cash", type: asset }] } }) { __typename } }',
    );
    const ledgers = Math.ceil(DOCUMENT_LIMITS.listItems / 200) + 5;
    for (const i of range(ledgers)) {
      await gql(
        server.baseUrl,
        alice.token,
        `mutation { createLedger(ik: "l${i}", ledger: { name: "L" }, schema: { key: "s" }) { __typename } }`,
      );
    }
    const answer = await gql(
      server.baseUrl,
      alice.token,
      'query($n: Int) { ledgers(first: $n) { nodes { schema { ledgers(first: $n) { nodes { id } } } } } }',
      { n: 200 },
    );
    const codes = new Set(answer.body.errors?.map((error: { extensions: { code: string } }) => error.extensions.code));
    expect(codes).toEqual(new Set(['query_too_complex']));
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ limit: 'listItems', max: DOCUMENT_LIMITS.listItems });
    // The outer page is charged first (200), then each inner page of 200 while the budget lasts
    // (inner pages resolve concurrently, so which ones is not fixed); the rest are refused, their
    // schema null, and every answered inner list is whole.
    const nodes: { schema: { ledgers: { nodes: unknown[] } } | null }[] = answer.body.data.ledgers.nodes;
    const answered = nodes.filter((node) => node.schema !== null);
    expect(nodes).toHaveLength(ledgers + 1); // and the ledger of the test above
    expect(answered).toHaveLength(Math.floor(DOCUMENT_LIMITS.listItems / 200) - 1);
    expect(new Set(answered.map((node) => node.schema?.ledgers.nodes.length))).toEqual(new Set([ledgers]));
  });
});

describe('limits set by the operator', () => {
  it('refuse at the configured maximum and name it in the error', async () => {
    const strict = await startTestServer({ graphqlLimits: { ...DOCUMENT_LIMITS, aliases: 3, listItems: 50 } });
    try {
      const bob = await strict.workspace('Bob');
      const fine = await gql(
        strict.baseUrl,
        bob.token,
        '{ a: workspace { id } b: workspace { id } c: workspace { id } }',
      );
      expect(fine.body.errors).toBeUndefined();
      const refused = await gql(
        strict.baseUrl,
        bob.token,
        '{ a: workspace { id } b: workspace { id } c: workspace { id } d: workspace { id } }',
      );
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({
        code: 'query_too_complex',
        limit: 'aliases',
        max: 3,
      });
      expect(refused.body.errors?.[0]?.message).toContain('limit aliases: at most 3');
      const lists = await gql(strict.baseUrl, bob.token, 'query($n: Int) { ledgers(first: $n) { nodes { id } } }', {
        n: 51,
      });
      expect(lists.body.errors?.[0]?.extensions).toMatchObject({
        code: 'query_too_complex',
        limit: 'listItems',
        max: 50,
      });
    } finally {
      await strict.close();
    }
  });
});
