import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

let server: TestServer;
let alice: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

type Answer = { status: number; type: string; headers: Headers; body: { data?: any; errors?: any[] } };

async function send(init: {
  method?: string;
  path?: string;
  body?: string;
  type?: string;
  accept?: string;
  token?: string | null;
}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.type !== undefined) headers['content-type'] = init.type;
  headers.accept = init.accept ?? 'application/json';
  const token = init.token === undefined ? alice.token : init.token;
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${server.baseUrl}${init.path ?? '/graphql'}`, {
    method: init.method ?? 'POST',
    headers,
    body: init.body,
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    headers: response.headers,
    body: JSON.parse(text),
  };
}

const codeOf = (answer: Answer) => answer.body.errors?.[0]?.extensions?.code;

describe('every /graphql failure is a GraphQL response', () => {
  it.each([
    [
      'no token',
      { token: null, type: 'application/json', body: '{"query":"{ workspace { id } }"}' },
      401,
      'unauthorized',
    ],
    ['malformed JSON', { type: 'application/json', body: '{"query": "{ workspace' }, 400, 'malformed_json'],
    [
      'a body over 1 MiB',
      { type: 'application/json', body: JSON.stringify({ query: `{ workspace { id } } #${'x'.repeat(1_100_000)}` }) },
      413,
      'payload_too_large',
    ],
    ['a text/plain body', { type: 'text/plain', body: '{ workspace { id } }' }, 415, 'unsupported_media_type'],
    [
      'an Accept it cannot produce',
      { type: 'application/json', accept: 'text/html', body: '{"query":"{ workspace { id } }"}' },
      406,
      'not_acceptable',
    ],
    [
      'PUT',
      { method: 'PUT', type: 'application/json', body: '{"query":"{ workspace { id } }"}' },
      405,
      'method_not_allowed',
    ],
    [
      'a mutation over GET',
      {
        method: 'GET',
        path: `/graphql?query=${encodeURIComponent('mutation { deleteLedger(ledger: { ik: "x" }) { __typename } }')}`,
      },
      405,
      'method_not_allowed',
    ],
    [
      'a batched array body',
      { type: 'application/json', body: '[{"query":"{ workspace { id } }"}]' },
      400,
      'graphql_parse_failed',
    ],
    [
      'variables that are not an object',
      { type: 'application/json', body: '{"query":"{ workspace { id } }","variables":[1]}' },
      400,
      'graphql_parse_failed',
    ],
    ['no query', { type: 'application/json', body: '{"variables":{}}' }, 400, 'graphql_parse_failed'],
  ])('%s', async (_label, init, status, code) => {
    const answer = await send(init);
    expect(answer.status).toBe(status);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors![0]).toMatchObject({ message: expect.any(String), extensions: { code } });
  });

  it('uses application/graphql-response+json when the client accepts it, with 4xx for request errors', async () => {
    const accept = 'application/graphql-response+json';
    const unreadable = await send({ type: 'application/json', accept, body: '{"query":' });
    expect([unreadable.status, unreadable.type, codeOf(unreadable)]).toEqual([
      400,
      `${accept}; charset=utf-8`,
      'malformed_json',
    ]);
    const invalid = await send({ type: 'application/json', accept, body: JSON.stringify({ query: '{ nope }' }) });
    expect([invalid.status, codeOf(invalid)]).toEqual([400, 'graphql_validation_failed']);
    // With application/json, a document that fails validation is still a 200, as the GraphQL-over-HTTP spec says.
    const legacy = await send({ type: 'application/json', body: JSON.stringify({ query: '{ nope }' }) });
    expect([legacy.status, codeOf(legacy)]).toEqual([200, 'graphql_validation_failed']);
  });
});

describe('every GraphQL error carries extensions.code', () => {
  it.each([
    ['a syntax error', '{ workspace { id }', {}, 'graphql_parse_failed'],
    ['an unknown field', '{ workspace { nope } }', {}, 'graphql_validation_failed'],
    [
      'an Int argument that overflows',
      '{ schema(schema: { key: "s", version: 99999999999 }) { key } }',
      {},
      'graphql_validation_failed',
    ],
    [
      'an Int variable that overflows',
      'query($n: Int) { ledgers(first: $n) { nodes { id } } }',
      { n: 2 ** 40 },
      'graphql_validation_failed',
    ],
    [
      'an unknown enum value',
      '{ ledgers(filter: { type: { equalTo: triple } }) { nodes { id } } }',
      {},
      'graphql_validation_failed',
    ],
    [
      'a variable of the wrong type',
      'query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { id } }',
      { ik: 5 },
      'invalid_input_provided',
    ],
    [
      'a missing variable',
      'query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { id } }',
      {},
      'graphql_validation_failed',
    ],
    [
      'an unknown operation name',
      'query a { workspace { id } } query b { workspace { id } }',
      {},
      'graphql_validation_failed',
    ],
  ])('%s', async (_label, query, variables, code) => {
    const answer = await gql(server.baseUrl, alice.token, query, variables);
    expect(answer.body.data ?? null).toBeNull();
    expect(
      new Set(answer.body.errors?.map((error: { extensions?: { code?: string } }) => error.extensions?.code)),
    ).toEqual(new Set([code]));
  });
});

describe('text PostgreSQL cannot store', () => {
  const create =
    'mutation($ik: SafeString!, $name: String!) { createLedger(ik: $ik, ledger: { name: $name }) { __typename } }';
  it.each([
    ['a NUL in a variable', create, { ik: 'nul-var', name: 'a\u0000b' }, 'invalid_input_provided'],
    ['a lone surrogate in a variable', create, { ik: 'sur-var', name: 'a\ud800' }, 'invalid_input_provided'],
    [
      'an escaped NUL in a literal',
      'mutation { createLedger(ik: "nul-lit", ledger: { name: "a\\u0000b" }) { __typename } }',
      {},
      'invalid_input_provided',
    ],
    [
      'an escaped lone surrogate in a literal',
      'mutation { createLedger(ik: "sur-lit", ledger: { name: "a\\ud800" }) { __typename } }',
      {},
      'graphql_parse_failed',
    ],
    // GraphQL source text is Unicode scalar values: graphql's lexer itself refuses a raw lone surrogate.
    [
      'a raw lone surrogate in a block string',
      'mutation { createLedger(ik: "sur-blk", ledger: { name: """x\ud800""" }) { __typename } }',
      {},
      'graphql_parse_failed',
    ],
  ])('%s is refused before any resolver runs', async (_label, query, variables, code) => {
    const answer = await gql(server.baseUrl, alice.token, query, variables);
    expect(answer.body.data).toBeUndefined();
    expect(answer.body.errors?.[0]?.extensions?.code).toBe(code);
    const list = await gql(server.baseUrl, alice.token, '{ ledgers { nodes { ik } } }');
    expect(list.body.data.ledgers.nodes).toEqual([]);
  });
});
