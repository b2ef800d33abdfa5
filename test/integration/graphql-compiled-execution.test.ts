import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// A document runs through graphql-js on its first execution and through graphql-jit's compiled
// function from its second on (compiledExecution.ts): every answer must be the same either way,
// data and errors alike, for reads, refusals, replays and variables that do not coerce.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, alice.token, query, variables)).body;

const POST = `mutation post($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename
    ... on AddLedgerEntryResult { entry { ik type description tags { key value } lines { nodes { amount key account { path } } } } }
    ... on Error { code message }
  }
}`;
const transfer = (amount: unknown) => ({
  ledger: { ik: 'jit' },
  description: 'café ☕ 𝄞',
  lines: [
    { account: { path: 'bank' }, amount, key: 'from' },
    { account: { path: 'users/alice' }, amount, key: 'to' },
  ],
});

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  await call(`mutation { createLedger(ik: "jit", ledger: { name: "JIT" }) { __typename } }`);
  const created = await call(`mutation { createLedgerAccounts(ledger: { ik: "jit" }, ledgerAccounts: [
    { ik: "bank", name: "Bank", type: asset },
    { ik: "users", name: "Users", type: liability, childLedgerAccounts: [{ ik: "alice", name: "Alice" }] }
  ]) { __typename } }`);
  expect(created.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
  const posted = await call(POST, { ik: 'first', entry: transfer('150') });
  expect(posted.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
});
afterAll(() => server?.close());

const cases: [string, string, Record<string, unknown>][] = [
  [
    'a read with aliases, fragments and arguments',
    `query read($ledger: LedgerMatchInput!, $first: Int) {
      ledger(ledger: $ledger) {
        ...named
        accounts: ledgerAccounts(first: $first) { nodes { path balance balances { nodes { currency { code } amount } } } pageInfo { hasNextPage } }
      }
    }
    fragment named on Ledger { ik balanceUTCOffset }`,
    { ledger: { ik: 'jit' }, first: 5 },
  ],
  [
    '@include and @skip by variables',
    `query($ledger: LedgerMatchInput!, $withId: Boolean!, $skipIk: Boolean!) {
      ledger(ledger: $ledger) { id @include(if: $withId) ik @skip(if: $skipIk) }
    }`,
    { ledger: { ik: 'jit' }, withId: false, skipIk: true },
  ],
  [
    'a cursor the list did not issue (an error a resolver throws)',
    `query($l: LedgerMatchInput!) { ledger(ledger: $l) { ik ledgerAccounts(after: "bogus") { nodes { path } } } }`,
    { l: { ik: 'jit' } },
  ],
  ['a root field that throws', `query { ledgers(after: "bogus") { nodes { ik } } }`, {}],
  ['a ledger that does not exist', `query($l: LedgerMatchInput!) { ledger(ledger: $l) { ik } }`, { l: { ik: 'nope' } }],
  ['a replayed posting', POST, { ik: 'first', entry: transfer('150') }],
  ['an ik clash', POST, { ik: 'first', entry: transfer('151') }],
  ['an unbalanced entry', POST, { ik: 'unbalanced', entry: { ...transfer('1'), lines: [transfer('1').lines[0]] } }],
  ['an amount that is not an integer', POST, { ik: 'fraction', entry: transfer('1.5') }],
  ['an amount of the wrong type', POST, { ik: 'number', entry: transfer(true) }],
  ['a missing variable', POST, { entry: transfer('1') }],
  ['a field the input type lacks', POST, { ik: 'extra', entry: { ...transfer('1'), colour: 'red' } }],
  ['null where a value is required', POST, { ik: 'null', entry: { ...transfer('1'), lines: [null] } }],
];

describe('compiled execution', () => {
  it.each(cases)('answers %s the same when interpreted and when compiled', async (name, query, variables) => {
    const answers = [];
    // Interpreted, compiled on the second execution, then the compiled function again.
    for (let i = 0; i < 3; i++) answers.push(await call(query, variables));
    // Variables that do not coerce and throwing resolvers answer errors; everything else data.
    expect(Boolean(answers[0].errors), JSON.stringify(answers[0])).toBe(
      /not an integer|wrong type|missing variable|input type lacks|null where|throw/.test(name),
    );
    // Errors of a field say where it is in the document, compiled or not.
    for (const error of answers[2].errors ?? []) {
      if (error.path) expect(error.locations, JSON.stringify(error)).toBeDefined();
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('answers an operation chosen by name from a compiled document', async () => {
    const both = `query a { ledger(ledger: { ik: "jit" }) { ik } } query b { ledger(ledger: { ik: "jit" }) { balanceUTCOffset } }`;
    const named = async (operationName: string) => {
      const response = await fetch(`${server.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
        body: JSON.stringify({ query: both, operationName }),
      });
      return (await response.json()) as { data?: { ledger: Record<string, string> } };
    };
    for (let i = 0; i < 3; i++) {
      expect((await named('a')).data).toEqual({ ledger: { ik: 'jit' } });
      expect((await named('b')).data).toEqual({ ledger: { balanceUTCOffset: '+00:00' } });
    }
  });
});
