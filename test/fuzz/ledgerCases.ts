import type { HttpCase } from './restCases.js';
import { HOSTILE_STRINGS, type Random } from './random.js';

// Ledger writes that are well-formed GraphQL but wrong for the ledger they reach: they run the
// whole posting path (typed entries, templates, conditions, batches, reversals, schema changes)
// against ledgers the world seeded, and every one must be refused with a typed error, writing nothing.

export const LEDGER_WORLD = {
  schemaKey: 'fz-wallet',
  schemaLedger: 'fz-wallets',
  plainLedger: 'fz-books',
  /** A schema whose entry types exercise templates, arithmetic and conditions. */
  schema: {
    key: 'fz-wallet',
    chartOfAccounts: {
      accounts: [
        { key: 'bank', type: 'asset' },
        { key: 'users', type: 'liability', template: true, children: [{ key: 'wallet' }] },
        { key: 'fees', type: 'income' },
      ],
    },
    ledgerEntries: {
      types: [
        {
          type: 'fund',
          lines: [
            { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' },
            { key: 'wallet', account: { path: 'users:{{user}}/wallet' }, amount: '{{amount}}' },
          ],
        },
        {
          type: 'fee',
          lines: [
            { key: 'wallet', account: { path: 'users:{{user}}/wallet' }, amount: '-{{fee}}' },
            { key: 'fees', account: { path: 'fees' }, amount: '{{fee}}' },
          ],
          conditions: [{ account: { path: 'users:{{user}}/wallet' }, postcondition: { ownBalance: { gte: '0' } } }],
        },
        { type: 'manual' },
      ],
    },
  },
  plainAccounts: [
    { ik: 'cash', name: 'Cash', type: 'asset' },
    { ik: 'owed', name: 'Owed', type: 'liability' },
  ],
};

const INT96_BEYOND = (1n << 120n).toString();

export function ledgerCaseGenerator(token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  const post = (kind: string, operation: string, query: string, variables: Record<string, unknown>): HttpCase => ({
    kind: `ledger:${kind}`,
    operation,
    method: 'POST',
    path: '/graphql',
    headers,
    body: JSON.stringify({ query, variables }),
    writes: true,
  });
  const ADD =
    'mutation($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on BadRequestError { code } } }';
  const BATCH =
    'mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) { __typename ... on AddLedgerEntriesError { code errors { code } } ... on BadRequestError { code } } }';
  const wallets = { ik: LEDGER_WORLD.schemaLedger };
  const books = { ik: LEDGER_WORLD.plainLedger };
  const line = (path: string, amount: string) => ({ account: { path }, amount });
  const deepArrays = (depth: number): unknown => {
    let value: unknown = 'u1';
    for (let level = 0; level < depth; level++) value = [value];
    return value;
  };

  const badTyped = (random: Random) =>
    random.pick<Record<string, unknown>>([
      { type: 'fund', parameters: { user: 'u1' } },
      { type: 'fund', parameters: { user: 'u1', amount: '10', extra: 'x' } },
      {
        type: 'fund',
        parameters: {
          user: 'u1',
          amount: random.pick(['1.5', '1e3', '', ' 1', '--1', INT96_BEYOND, random.pick(HOSTILE_STRINGS)]),
        },
      },
      { type: 'fund', parameters: { user: random.pick(['a/b', 'a:b', 'a#b', 'u'.repeat(200), '']), amount: '1' } },
      { type: 'fund', parameters: { user: { nested: true }, amount: '1' } },
      // Past the JSON scalars' nesting limit: refused while coerced, before any recursion over it.
      { type: 'fund', parameters: { user: deepArrays(random.int(101, 3000)), amount: '1' } },
      { type: 'fund', parameters: ['u1', '1'] },
      { type: 'fund', typeVersion: random.int(2, 9), parameters: { user: 'u1', amount: '1' } },
      { type: random.pick(['nope', 'FUND', 'fund ']), parameters: {} },
      { type: 'fee', parameters: { user: `rich-${random.int(0, 9)}`, fee: String(random.int(1, 10 ** 6)) } },
      { type: 'manual' },
      { type: 'manual', lines: [line('users/wallet', '1'), line('bank', '1')] },
      { type: 'fund', parameters: { user: 'u1', amount: '1' }, lines: [line('bank', '1'), line('fees', '1')] },
    ]);
  const badPlain = (random: Random) =>
    random.pick<Record<string, unknown>>([
      { lines: [line('cash', '10'), line('owed', '9')] },
      { lines: [line('cash', '10'), line('nowhere', '10')] },
      { lines: [line('cash', INT96_BEYOND), line('owed', INT96_BEYOND)] },
      { lines: Array.from({ length: 31 }, (_, i) => line(i % 2 ? 'owed' : 'cash', '1')) },
      {
        lines: [line('cash', '5'), line('owed', '5')],
        conditions: [{ account: { path: 'owed' }, precondition: { ownBalance: { eq: '-1' } } }],
      },
      {
        lines: [line('cash', '5'), line('owed', '5')],
        conditions: [{ account: { path: 'cash' }, postcondition: { ownBalance: { eq: '1', gte: '0' } } }],
      },
      {
        lines: [line('cash', '5'), line('owed', '5')],
        tags: Array.from({ length: 31 }, (_, i) => ({ key: `k${i}`, value: 'v' })),
      },
      { lines: [{ account: { path: 'cash' }, amount: '5', currency: { code: 'EUR' } }, line('owed', '5')] },
      { type: 'fund', parameters: { user: 'u1', amount: '1' } },
    ]);

  const generators: ((random: Random) => HttpCase)[] = [
    (random) =>
      post('typed-entry', 'addLedgerEntry', ADD, {
        ik: `fz-typed-${random.int(0, 1e6)}`,
        entry: { ledger: wallets, ...badTyped(random) },
      }),
    (random) =>
      post('plain-entry', 'addLedgerEntry', ADD, {
        ik: `fz-plain-${random.int(0, 1e6)}`,
        entry: { ledger: books, ...badPlain(random) },
      }),
    (random) => {
      const good = {
        ik: `fz-b-${random.int(0, 1e6)}`,
        entry: { ledger: books, lines: [line('cash', '1'), line('owed', '1')] },
      };
      const entries = random.pick([
        [good, { ik: `fz-b2-${random.int(0, 1e6)}`, entry: { ledger: books, ...badPlain(random) } }],
        [good, good],
        [good, { ik: 'fz-other', entry: { ledger: wallets, type: 'fund', parameters: { user: 'u', amount: '1' } } }],
        Array.from({ length: 16 }, (_, i) => ({ ...good, ik: `fz-many-${i}` })),
        [],
      ]);
      return post('batch', 'addLedgerEntries', BATCH, { entries });
    },
    (random) =>
      post(
        'reverse',
        'reverseLedgerEntry',
        'mutation($id: ID!) { reverseLedgerEntry(id: $id) { __typename ... on BadRequestError { code } } }',
        { id: random.pick([`ent_${'0'.repeat(26)}`, 'x', random.pick(HOSTILE_STRINGS)]) },
      ),
    (random) =>
      post(
        'update',
        'updateLedgerEntry',
        'mutation($m: LedgerEntryMatchInput!, $u: UpdateLedgerEntryInput!) { updateLedgerEntry(ledgerEntry: $m, update: $u) { __typename ... on BadRequestError { code } } }',
        {
          m: random.pick([{ id: 'ent_missing' }, { ik: 'missing', ledger: books }, { ik: 'x' }]),
          u: { tags: [{ key: 'k', value: 'v' }] },
        },
      ),
    (random) =>
      post(
        'migrate',
        'migrateLedgerEntry',
        'mutation($i: MigrateLedgerEntryInput!) { migrateLedgerEntry(input: $i) { __typename ... on BadRequestError { code } } }',
        {
          i: {
            id: random.pick(['ent_missing', 'x']),
            newLedgerEntry: { ledger: books, lines: [line('cash', '1'), line('owed', '1')] },
          },
        },
      ),
    (random) => {
      const schema = structuredClone(LEDGER_WORLD.schema) as {
        chartOfAccounts: { accounts: Record<string, unknown>[] };
      };
      const change = random.pick(['remove', 'retype', 'currency', 'untemplate']);
      if (change === 'remove') schema.chartOfAccounts.accounts.pop();
      if (change === 'retype') schema.chartOfAccounts.accounts[0].type = 'expense';
      if (change === 'currency') schema.chartOfAccounts.accounts[0].currency = { code: 'EUR' };
      if (change === 'untemplate') schema.chartOfAccounts.accounts[1].template = false;
      return post(
        `schema-${change}`,
        'storeSchema',
        'mutation($s: SchemaInput!) { storeSchema(schema: $s) { __typename ... on BadRequestError { code } } }',
        { s: schema },
      );
    },
    () =>
      post(
        'delete-schema',
        'deleteSchema',
        'mutation { deleteSchema(schema: { key: "fz-wallet" }) { __typename ... on BadRequestError { code } } }',
        {},
      ),
  ];
  return { next: (random: Random) => random.pick(generators)(random) };
}
