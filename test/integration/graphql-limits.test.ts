import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS, LIST_ITEMS_PER_REQUEST } from '../../src/ledger/limits.js';
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
    const named = answer.body.errors!.find((error: { extensions: { limit: string } }) => error.extensions.limit === limit);
    expect(named?.extensions).toMatchObject({ max: DOCUMENT_LIMITS[limit as keyof typeof DOCUMENT_LIMITS] });
    expect(named?.message).toContain(`limit ${limit}`);
  });

  it('bounds the list items of one request even when page sizes come in variables', async () => {
    await gql(server.baseUrl, alice.token, 'mutation { storeSchema(schema: { key: "s", chartOfAccounts: { accounts: [{ key: "cash", type: asset }] } }) { __typename } }');
    const ledgers = Math.ceil(LIST_ITEMS_PER_REQUEST / 200) + 5;
    for (const i of range(ledgers)) {
      await gql(server.baseUrl, alice.token, `mutation { createLedger(ik: "l${i}", ledger: { name: "L" }, schema: { key: "s" }) { __typename } }`);
    }
    const answer = await gql(server.baseUrl, alice.token,
      'query($n: Int) { ledgers(first: $n) { nodes { schema { ledgers(first: $n) { nodes { id } } } } } }', { n: 200 });
    const codes = new Set(answer.body.errors?.map((error: { extensions: { code: string } }) => error.extensions.code));
    expect(codes).toEqual(new Set(['query_too_complex']));
    expect(answer.body.errors?.[0]?.extensions).toMatchObject({ limit: 'listItems', max: LIST_ITEMS_PER_REQUEST });
    // The lists within the budget were answered.
    expect(answer.body.data.ledgers.nodes.filter((node: unknown) => node !== null).length).toBeGreaterThan(0);
  });
});
