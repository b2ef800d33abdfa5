import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename
    ... on AddLedgerEntryResult {
      isIkReplay
      entry { id ik posted description tags { key value } groups { key value } lines { nodes { id } } }
      lines { id amount type currency { code } account { path } key }
    }
    ... on BadRequestError { code message retryable }
    ... on InternalError { code }
  }
}`;
const BALANCES = `query($path: String!) {
  ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: "books" } }) {
    ownBalance childBalance balance
    balances { nodes { currency { code } amount } }
  }
}`;

let server: TestServer;
let alice: TestWorkspace;
const ledger = { ik: 'books' };
const INT96_MAX = ((1n << 120n) - 1n).toString();

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  await gql(
    server.baseUrl,
    alice.token,
    'mutation { createLedger(ik: "books", ledger: { name: "Books" }) { __typename } }',
  );
  const created = await gql(
    server.baseUrl,
    alice.token,
    `mutation { createLedgerAccounts(ledger: { ik: "books" }, ledgerAccounts: [
    { ik: "bank", name: "Bank", type: asset },
    { ik: "users", name: "Users", type: liability, childLedgerAccounts: [{ ik: "alice", name: "Alice" }, { ik: "bob", name: "Bob" }] },
    { ik: "fees", name: "Fees", type: income },
    { ik: "fx", name: "FX", type: asset, currencyMode: multi },
    { ik: "fx-liability", name: "FX liability", type: liability, currencyMode: multi },
    { ik: "big", name: "Big", type: asset }, { ik: "big-source", name: "Big source", type: liability }
  ]) { __typename } }`,
  );
  expect(created.body.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
});
afterAll(() => server?.close());

const post = async (ik: string, entry: Record<string, unknown>) =>
  (await gql(server.baseUrl, alice.token, POST, { ik, entry: { ledger, ...entry } })).body.data.addLedgerEntry;
const balances = async (path: string) =>
  (await gql(server.baseUrl, alice.token, BALANCES, { path })).body.data.ledgerAccount;
const line = (path: string, amount: string, extra: Record<string, unknown> = {}) => ({
  account: { path },
  amount,
  ...extra,
});

describe('addLedgerEntry with explicit lines', () => {
  it('posts a balanced entry, updates current balances, and reads the lines back', async () => {
    const result = await post('fund-1', {
      lines: [line('bank', '10000', { key: 'cash' }), line('users/alice', '10000', { key: 'alice' })],
      description: 'Funding',
      tags: [{ key: 'source', value: 'wire' }],
      groups: [{ key: 'batch', value: 'b1' }],
    });
    expect(result).toMatchObject({
      __typename: 'AddLedgerEntryResult',
      isIkReplay: false,
      entry: {
        ik: 'fund-1',
        description: 'Funding',
        tags: [{ key: 'source', value: 'wire' }],
        groups: [{ key: 'batch', value: 'b1' }],
      },
      lines: [
        { amount: '10000', type: 'debit', currency: { code: 'USD' }, account: { path: 'bank' }, key: 'cash' },
        { amount: '10000', type: 'credit', currency: { code: 'USD' }, account: { path: 'users/alice' }, key: 'alice' },
      ],
    });
    expect(result.entry.lines.nodes.map((n: { id: string }) => n.id)).toEqual(
      result.lines.map((l: { id: string }) => l.id),
    );
    expect(await balances('bank')).toMatchObject({ ownBalance: '10000', childBalance: '0', balance: '10000' });
    expect(await balances('users')).toMatchObject({ ownBalance: '0', childBalance: '10000', balance: '10000' });
  });

  it('replays the same ik with the same entry, ids included, and refuses it with another', async () => {
    const first = await post('p2p-1', { lines: [line('users/alice', '-2500'), line('users/bob', '2500')] });
    const again = await post('p2p-1', { lines: [line('users/alice', '-2500'), line('users/bob', '2500')] });
    expect(again).toMatchObject({ isIkReplay: true, entry: { id: first.entry.id }, lines: first.lines });
    const other = await post('p2p-1', { lines: [line('users/alice', '-1'), line('users/bob', '1')] });
    expect(other).toMatchObject({ __typename: 'BadRequestError', code: 'idempotency_key_reused', retryable: false });
    expect(await balances('users/bob')).toMatchObject({ ownBalance: '2500' });
  });

  it('answers 50 concurrent identical posts with one entry', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        post('race-1', { lines: [line('users/alice', '-100'), line('users/bob', '100')] }),
      ),
    );
    expect(new Set(results.map((r) => r.entry.id)).size).toBe(1);
    expect(results.filter((r) => !r.isIkReplay)).toHaveLength(1);
    expect(await balances('users/bob')).toMatchObject({ ownBalance: '2600' });
  });

  it('keeps balances exact in concurrent entries touching the same accounts in opposite orders', async () => {
    const before = await balances('users');
    const posts = Array.from({ length: 40 }, (_, i) =>
      post(`swap-${i}`, {
        lines:
          i % 2
            ? [line('users/alice', '-1'), line('users/bob', '1')]
            : [line('users/bob', '-1'), line('users/alice', '1')],
      }),
    );
    const results = await Promise.all(posts);
    expect(results.every((r) => r.__typename === 'AddLedgerEntryResult')).toBe(true);
    expect(await balances('users')).toEqual(before);
  });

  // The deadlock test: 8 clients for 20 s (DEADLOCK_TEST_SECONDS), single entries and
  // batches touching the same accounts in opposite orders; every request must succeed.
  const seconds = Number(process.env.DEADLOCK_TEST_SECONDS ?? 20);
  it(`never deadlocks: 8 clients for ${seconds} s, entries and batches in opposite orders`, async () => {
    const totals = async () =>
      Promise.all(['bank', 'fees', 'users/alice', 'users/bob'].map(async (path) => (await balances(path)).ownBalance));
    const before = await totals();
    const deadline = Date.now() + seconds * 1000;
    const failures: unknown[] = [];
    let count = 0;
    const BATCH = `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) { __typename ... on Error { code message } } }`;
    const swap = (ik: string, forward: boolean) => ({
      ik,
      entry: {
        ledger,
        lines: forward
          ? [line('bank', '0'), line('users/alice', '-1'), line('users/bob', '1')]
          : [line('users/bob', '-1'), line('users/alice', '1'), line('bank', '0')],
      },
    });
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let n = 0; Date.now() < deadline; n++) {
          const forward = (client + n) % 2 === 0;
          if (client % 2 === 0) {
            // Each pair of single entries nets to zero, so the balances end where they began.
            for (const [suffix, direction] of [
              ['a', forward],
              ['b', !forward],
            ] as const) {
              const { ik, entry } = swap(`dl-${client}-${n}-${suffix}`, direction);
              const result = await post(ik, entry);
              if (result.__typename !== 'AddLedgerEntryResult') failures.push(result);
            }
          } else {
            // Two entries on disjoint accounts, in opposite orders across batches: a batch that
            // locked its first entry's accounts must never wait forever on another's.
            const move = (ik: string, sign: string) => ({
              ik,
              entry: { ledger, lines: [line('users/alice', `${sign}1`), line('users/bob', sign === '-' ? '1' : '-1')] },
            });
            const users = move(`dlb-${client}-${n}-u`, '-');
            const cash = {
              ik: `dlb-${client}-${n}-c`,
              entry: { ledger, lines: [line('bank', forward ? '1' : '-1'), line('fees', forward ? '1' : '-1')] },
            };
            const undo = {
              ik: `dlb-${client}-${n}-d`,
              entry: { ledger, lines: [line('fees', forward ? '-1' : '1'), line('bank', forward ? '-1' : '1')] },
            };
            const back = move(`dlb-${client}-${n}-v`, '');
            const entries = forward ? [users, cash, back, undo] : [cash, users, undo, back];
            const result = (await gql(server.baseUrl, alice.token, BATCH, { entries })).body.data.addLedgerEntries;
            if (result.__typename !== 'AddLedgerEntriesResult') failures.push(result);
          }
          count++;
        }
      }),
    );
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(50);
    expect(await totals()).toEqual(before);
  }, 120_000);

  it('balances per currency on multi-currency accounts', async () => {
    const result = await post('fx-1', {
      lines: [
        line('fx', '500', { currency: { code: 'EUR' } }),
        line('fx-liability', '500', { currency: { code: 'EUR' } }),
        line('fx', '700', { currency: { code: 'GBP' } }),
        line('fx-liability', '700', { currency: { code: 'GBP' } }),
      ],
    });
    expect(result.__typename).toBe('AddLedgerEntryResult');
    const fx = (
      await gql(
        server.baseUrl,
        alice.token,
        '{ ledgerAccount(ledgerAccount: { path: "fx", ledger: { ik: "books" } }) { balances { nodes { currency { code } amount } } } }',
      )
    ).body.data.ledgerAccount;
    expect(fx.balances.nodes).toEqual([
      { currency: { code: 'EUR' }, amount: '500' },
      { currency: { code: 'GBP' }, amount: '700' },
    ]);
    const singular = await gql(
      server.baseUrl,
      alice.token,
      '{ ledgerAccount(ledgerAccount: { path: "fx", ledger: { ik: "books" } }) { ownBalance } }',
    );
    expect(singular.body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
  });

  it('refuses a post whose postcondition fails, naming the account, and writes nothing', async () => {
    const overdraft = await post('overdraft-1', {
      lines: [line('users/alice', '-999999'), line('users/bob', '999999')],
      conditions: [{ account: { path: 'users/alice' }, postcondition: { ownBalance: { gte: '0' } } }],
    });
    expect(overdraft).toMatchObject({ __typename: 'BadRequestError', code: 'entry_condition_failed' });
    expect(overdraft.message).toContain('users/alice');
    const entry = await gql(
      server.baseUrl,
      alice.token,
      '{ ledgerEntry(ledgerEntry: { ik: "overdraft-1", ledger: { ik: "books" } }) { id } }',
    );
    expect(entry.body.data.ledgerEntry).toBeNull();
    const fine = await post('guarded-1', {
      lines: [line('users/alice', '-1'), line('users/bob', '1')],
      conditions: [
        {
          account: { path: 'users/alice' },
          precondition: { ownBalance: { gte: '1' } },
          postcondition: { ownBalance: { gte: '0' } },
        },
      ],
    });
    expect(fine.__typename).toBe('AddLedgerEntryResult');
  });

  it.each([
    ['unbalanced lines', { lines: [line('bank', '100'), line('users/alice', '99')] }, 'entry_unbalanced'],
    [
      'a currency the account does not hold',
      { lines: [line('bank', '1', { currency: { code: 'EUR' } }), line('users/alice', '1')] },
      'invalid_input_provided',
    ],
    [
      'a multi-currency line without currency',
      { lines: [line('fx', '1'), line('fx-liability', '1')] },
      'invalid_input_provided',
    ],
    ['an unknown account', { lines: [line('nowhere', '1'), line('bank', '-1')] }, 'ledger_account_not_found'],
    ['no lines', { lines: [] }, 'invalid_input_provided'],
    ['31 lines', { lines: Array.from({ length: 31 }, () => line('bank', '0')) }, 'ledger_entry_too_many_lines'],
    [
      'a line without amount',
      { lines: [{ account: { path: 'bank' } }, line('users/alice', '0')] },
      'invalid_input_provided',
    ],
    [
      'a condition on an account without a line',
      {
        lines: [line('bank', '1'), line('users/alice', '1')],
        conditions: [{ account: { path: 'fees' }, postcondition: { ownBalance: { gte: '0' } } }],
      },
      'invalid_input_provided',
    ],
    [
      'eq with gte in a condition',
      {
        lines: [line('bank', '1'), line('users/alice', '1')],
        conditions: [{ account: { path: 'bank' }, postcondition: { ownBalance: { eq: '1', gte: '0' } } }],
      },
      'invalid_input_provided',
    ],
    [
      'a duplicated tag key',
      {
        lines: [line('bank', '1'), line('users/alice', '1')],
        tags: [
          { key: 'a', value: '1' },
          { key: 'a', value: '2' },
        ],
      },
      'invalid_input_provided',
    ],
  ])('refuses %s with a typed error and writes nothing', async (_label, entry, code) => {
    const before = await balances('bank');
    const result = await post(`bad-${code}-${Math.random().toString(36).slice(2)}`, entry);
    expect(result).toMatchObject({ __typename: 'BadRequestError', code });
    expect(await balances('bank')).toEqual(before);
  });

  it('is exact at the edge of Int96 and refuses a balance that would leave it', async () => {
    const edge = await post('edge-1', { lines: [line('big', INT96_MAX), line('big-source', INT96_MAX)] });
    expect(edge.lines[0].amount).toBe(INT96_MAX);
    expect((await balances('big')).ownBalance).toBe(INT96_MAX);
    const over = await post('edge-2', { lines: [line('big', '1'), line('big-source', '1')] });
    expect(over).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    expect((await balances('big')).ownBalance).toBe(INT96_MAX);
  });

  it('finds an entry by id or by ik, with its lines', async () => {
    const byIk = await gql(
      server.baseUrl,
      alice.token,
      '{ ledgerEntry(ledgerEntry: { ik: "fund-1", ledger: { ik: "books" } }) { id ik lines { nodes { amount account { path } } } } }',
    );
    const entry = byIk.body.data.ledgerEntry;
    expect(entry.lines.nodes).toEqual([
      { amount: '10000', account: { path: 'bank' } },
      { amount: '10000', account: { path: 'users/alice' } },
    ]);
    const byId = await gql(server.baseUrl, alice.token, `{ ledgerEntry(ledgerEntry: { id: "${entry.id}" }) { ik } }`);
    expect(byId.body.data.ledgerEntry).toEqual({ ik: 'fund-1' });
  });
});

describe('the ledger invariants', () => {
  it('hold after every post above, and a tampered balance is caught', async () => {
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
    await server.db.sql`update ledger_account_balances set own_balance = own_balance + 1
      where account_id = (select id from ledger_accounts where path = 'bank')`;
    const violations = await checkLedgerInvariants(server.db.sql);
    expect(violations).toEqual([
      expect.objectContaining({ check: 'stored balance equals the sum of lines', subject: 'bank USD' }),
    ]);
    await server.db.sql`update ledger_account_balances set own_balance = own_balance - 1
      where account_id = (select id from ledger_accounts where path = 'bank')`;
  });
});
