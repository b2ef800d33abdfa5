import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { postLedgerEntry } from '../../src/db/ledgerEntries.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What an entry may carry beyond amounts: line tags (posted, listed, reversed, updated),
// entry types that repeat lines over an array parameter or net their lines (postLinesAs), and
// conditions on an account's total balance, which hold under concurrent postings.

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename
    ... on AddLedgerEntryResult { isIkReplay entry { id conditions { precondition { ownBalance { gte } totalBalance { gte } } postcondition { totalBalance { gte } } } }
      lines { id key amount tags { key value } account { path } } }
    ... on BadRequestError { code message }
  }
}`;
const STORE = `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }`;
const UPDATE = `mutation($entry: LedgerEntryMatchInput!, $update: UpdateLedgerEntryInput!) {
  updateLedgerEntry(ledgerEntry: $entry, update: $update) {
    __typename ... on UpdateLedgerEntryResult { entry { lines { nodes { id tags { key value } } } } } ... on BadRequestError { code message }
  }
}`;
const LINES = `query($ik: SafeString!, $filter: LedgerLinesFilterSet!) {
  ledger(ledger: { ik: $ik }) { lines(filter: $filter) { nodes { amount tags { key value } isReversal } } }
}`;
const BALANCE = `query($ik: SafeString!, $path: String!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: $ik } }) { ownBalance balance } }`;

let server: TestServer;
let workspace: TestWorkspace;
beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('Shapes');
  await call('mutation { createLedger(ik: "books", ledger: { name: "Books" }) { __typename } }');
  const created = await call(`mutation { createLedgerAccounts(ledger: { ik: "books" }, ledgerAccounts: [
    { ik: "bank", name: "Bank", type: asset },
    { ik: "tills", name: "Tills", type: asset, childLedgerAccounts: [{ ik: "t0", name: "T0" }, { ik: "t1", name: "T1" }, { ik: "t2", name: "T2" }, { ik: "t3", name: "T3" }] },
    { ik: "users", name: "Users", type: liability, childLedgerAccounts: [
      { ik: "alice", name: "Alice" }, { ik: "bob", name: "Bob" }, { ik: "carol", name: "Carol" }, { ik: "dave", name: "Dave" }] }
  ]) { __typename ... on Error { message } } }`);
  expect(created.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
});
afterAll(async () => {
  expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  await server?.close();
});

async function call(query: string, variables?: Record<string, unknown>) {
  return (await gql(server.baseUrl, workspace.token, query, variables)).body;
}
const post = async (ik: string, entry: Record<string, unknown>, ledgerIk = 'books') =>
  (await call(POST, { ik, entry: { ledger: { ik: ledgerIk }, ...entry } })).data.addLedgerEntry;
const balance = async (path: string, ledgerIk = 'books') =>
  (await call(BALANCE, { ik: ledgerIk, path })).data.ledgerAccount;
const line = (path: string, amount: string, extra: Record<string, unknown> = {}) => ({
  account: { path },
  amount,
  ...extra,
});

describe('line tags', () => {
  let entryId: string;
  let lineIds: string[];
  it('are posted with the lines and read back', async () => {
    const result = await post('tagged', {
      lines: [
        line('bank', '300', { tags: [{ key: 'source', value: 'wire' }] }),
        line('users/alice', '300', {
          tags: [
            { key: 'source', value: 'wire' },
            { key: 'memo', value: 'payday' },
          ],
        }),
      ],
    });
    expect(result.__typename).toBe('AddLedgerEntryResult');
    expect(result.lines.map((l: { tags: unknown }) => l.tags)).toEqual([
      [{ key: 'source', value: 'wire' }],
      [
        { key: 'source', value: 'wire' },
        { key: 'memo', value: 'payday' },
      ],
    ]);
    entryId = result.entry.id;
    lineIds = result.lines.map((l: { id: string }) => l.id);
  });

  it('filter line lists', async () => {
    const filtered = await call(LINES, {
      ik: 'books',
      filter: { path: { matches: '*' }, tag: { equalTo: { key: 'memo', value: 'payday' } } },
    });
    expect(filtered.data.ledger.lines.nodes).toEqual([
      {
        amount: '300',
        tags: [
          { key: 'source', value: 'wire' },
          { key: 'memo', value: 'payday' },
        ],
        isReversal: false,
      },
    ]);
  });

  it('change through updateLedgerEntry, one line at a time', async () => {
    const result = (
      await call(UPDATE, {
        entry: { id: entryId },
        update: {
          ledgerLines: [
            {
              ledgerLine: { id: lineIds[0] },
              tags: [
                { key: 'source', value: 'ach' },
                { key: 'batch', value: 'b7' },
              ],
            },
            { ledgerLine: { id: lineIds[1] }, tagsToRemove: [{ key: 'memo', value: 'payday' }] },
          ],
        },
      })
    ).data.updateLedgerEntry;
    expect(result.entry.lines.nodes).toEqual([
      {
        id: lineIds[0],
        tags: [
          { key: 'source', value: 'ach' },
          { key: 'batch', value: 'b7' },
        ],
      },
      { id: lineIds[1], tags: [{ key: 'source', value: 'wire' }] },
    ]);
  });

  it('refuse a line of another entry, a line given twice, and duplicate keys, changing nothing', async () => {
    const other = await post('other-entry', { lines: [line('bank', '1'), line('users/bob', '1')] });
    const foreign = (
      await call(UPDATE, {
        entry: { id: entryId },
        update: { ledgerLines: [{ ledgerLine: { id: other.lines[0].id }, tags: [{ key: 'x', value: 'y' }] }] },
      })
    ).data.updateLedgerEntry;
    expect(foreign).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    const twice = (
      await call(UPDATE, {
        entry: { id: entryId },
        update: {
          ledgerLines: [
            { ledgerLine: { id: lineIds[0] }, tags: [{ key: 'x', value: 'y' }] },
            { ledgerLine: { id: lineIds[0] }, tags: [{ key: 'z', value: 'y' }] },
          ],
        },
      })
    ).data.updateLedgerEntry;
    expect(twice).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    const duplicate = await post('dup-tags', {
      lines: [
        line('bank', '1', {
          tags: [
            { key: 'a', value: '1' },
            { key: 'a', value: '2' },
          ],
        }),
        line('users/bob', '1'),
      ],
    });
    expect(duplicate).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    const tooMany = await post('many-tags', {
      lines: [
        line('bank', '1', { tags: Array.from({ length: 31 }, (_, i) => ({ key: `k${i}`, value: 'v' })) }),
        line('users/bob', '1'),
      ],
    });
    expect(tooMany).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    const unchanged = await call(LINES, {
      ik: 'books',
      filter: { path: { matches: '*' }, tag: { equalTo: { key: 'x', value: 'y' } } },
    });
    expect(unchanged.data.ledger.lines.nodes).toEqual([]);
  });

  it('are carried by the reversing lines', async () => {
    const reversed = await call(`mutation { reverseLedgerEntry(id: "${entryId}") { __typename } }`);
    expect(reversed.data.reverseLedgerEntry.__typename).toBe('ReverseLedgerEntryResult');
    const filtered = await call(LINES, {
      ik: 'books',
      filter: { path: { matches: '*' }, tag: { equalTo: { key: 'batch', value: 'b7' } }, showHidden: true },
    });
    expect(
      filtered.data.ledger.lines.nodes
        .map((l: { amount: string; isReversal: boolean }) => [l.amount, l.isReversal])
        .sort(),
    ).toEqual([
      ['-300', true],
      ['300', false],
    ]);
  });
});

describe('totalBalance conditions', () => {
  it('bound the account with its descendants, before and after the entry', async () => {
    expect((await post('fund-users', { lines: [line('bank', '500'), line('users/alice', '500')] })).__typename).toBe(
      'AddLedgerEntryResult',
    );
    const before = (await balance('users')).balance;
    // Bob's own balance may go negative here, but the users subtree as a whole may not.
    const overdraw = await post('overdraw', {
      lines: [line('users/bob', `-${BigInt(before) + 1n}`), line('bank', `-${BigInt(before) + 1n}`)],
      conditions: [{ account: { path: 'users' }, postcondition: { totalBalance: { gte: '0' } } }],
    });
    expect(overdraw).toMatchObject({ __typename: 'BadRequestError', code: 'entry_condition_failed' });
    const within = await post('within', {
      lines: [line('users/bob', '-100'), line('bank', '-100')],
      conditions: [
        {
          account: { path: 'users' },
          precondition: { totalBalance: { gte: '100' } },
          postcondition: { totalBalance: { gte: '0' } },
        },
      ],
    });
    expect(within.__typename).toBe('AddLedgerEntryResult');
    expect(within.entry.conditions).toEqual([
      {
        precondition: { ownBalance: null, totalBalance: { gte: '100' } },
        postcondition: { totalBalance: { gte: '0' } },
      },
    ]);
    expect((await balance('users')).balance).toBe((BigInt(before) - 100n).toString());
  });

  it('refuse an account the entry does not touch in that currency', async () => {
    const result = await post('untouched', {
      lines: [line('users/bob', '-1'), line('bank', '-1')],
      conditions: [{ account: { path: 'users/alice' }, postcondition: { totalBalance: { gte: '0' } } }],
    });
    expect(result).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
  });

  // Each child pays out through its own till, so only the condition can serialise the withdrawals.
  it('hold under 12 concurrent withdrawals, spread over children with and without balances', async () => {
    const total = BigInt((await balance('users')).balance);
    const each = total / 4n;
    expect(each).toBeGreaterThan(0n);
    const children = ['alice', 'bob', 'carol', 'dave'];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        post(`withdraw-${n}`, {
          lines: [line(`users/${children[n % 4]}`, `-${each}`), line(`tills/t${n % 4}`, `-${each}`)],
          conditions: [{ account: { path: 'users' }, postcondition: { totalBalance: { gte: '0' } } }],
        }),
      ),
    );
    const posted = results.filter((result) => result.__typename === 'AddLedgerEntryResult');
    expect(
      results
        .filter((result) => result.__typename !== 'AddLedgerEntryResult')
        .every((result) => result.code === 'entry_condition_failed'),
    ).toBe(true);
    expect(posted).toHaveLength(4);
    expect((await balance('users')).balance).toBe((total - 4n * each).toString());
  });
  // Deterministic: one posting is held open inside its transaction while another arrives.
  it('make a posting on the same subtree wait for one in flight, then see its effect', async () => {
    expect((await post('refund', { lines: [line('bank', '1000'), line('users/alice', '1000')] })).__typename).toBe(
      'AddLedgerEntryResult',
    );
    const total = (await balance('users')).balance as string;
    const ids = (
      await call(`{ ledger(ledger: { ik: "books" }) { id ledgerAccounts(first: 50) { nodes { id path } } } }`)
    ).data.ledger;
    const idOf = (path: string) => ids.ledgerAccounts.nodes.find((a: { path: string }) => a.path === path).id as string;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstPosted!: () => void;
    const posted = new Promise<void>((resolve) => {
      firstPosted = resolve;
    });
    const first = server.db.sql.begin(async (trx) => {
      const outcome = await postLedgerEntry(trx, {
        workspaceId: workspace.workspaceId,
        ledgerId: ids.id,
        ledgerRevision: null,
        entryId: newId('ent'),
        ik: 'held-open',
        requestHash: 'test',
        type: null,
        typeVersion: null,
        parameters: null,
        posted: new Date().toISOString(),
        description: null,
        tags: [],
        groups: [],
        conditions: [{ index: 0, accountId: idOf('users'), currency: 'USD', totalPostcondition: { gte: '0' } }],
        lines: [
          {
            id: newId('line'),
            accountId: idOf('users/carol'),
            currency: 'USD',
            amount: `-${total}`,
            key: null,
            description: null,
            tags: [],
          },
          {
            id: newId('line'),
            accountId: idOf('tills/t2'),
            currency: 'USD',
            amount: `-${total}`,
            key: null,
            description: null,
            tags: [],
          },
        ],
      });
      expect(outcome).toMatchObject({ replayed: false });
      firstPosted();
      await held;
    });
    await posted;
    let secondDone = false;
    const second = post('behind-held', {
      lines: [line('users/dave', '-1'), line('tills/t3', '-1')],
      conditions: [{ account: { path: 'users' }, postcondition: { totalBalance: { gte: '0' } } }],
    }).finally(() => {
      secondDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(secondDone).toBe(false);
    release();
    await first;
    expect(await second).toMatchObject({ __typename: 'BadRequestError', code: 'entry_condition_failed' });
    expect((await balance('users')).balance).toBe('0');
  });
});

describe('entry types that shape their lines', () => {
  const schema = {
    key: 'shapes',
    chartOfAccounts: {
      defaultCurrency: { code: 'USD' },
      defaultCurrencyMode: 'single',
      accounts: [
        { key: 'cash', type: 'asset' },
        { key: 'payees', type: 'liability', children: [{ key: 'payee', template: true }] },
        { key: 'fees', type: 'income' },
      ],
    },
    ledgerEntries: {
      types: [
        {
          type: 'payout',
          description: 'Payout {{run}}',
          lines: [
            { key: 'cash', account: { path: 'cash' }, amount: '{{total}}', tags: [{ key: 'run', value: '{{run}}' }] },
            {
              key: 'payee',
              account: { path: 'payees/payee:{{payee}}' },
              amount: '{{amount}}',
              repeated: { key: 'payees' },
              tags: [{ key: 'payee', value: '{{payee}}' }],
            },
          ],
          conditions: [{ account: { path: 'payees' }, postcondition: { totalBalance: { lte: '0' } } }],
        },
        {
          type: 'netted',
          postLinesAs: 'net_amounts',
          lines: [
            { key: 'in', account: { path: 'cash' }, amount: '{{gross}}' },
            { key: 'out', account: { path: 'cash' }, amount: '-{{fee}}' },
            { key: 'fee', account: { path: 'fees' }, amount: '{{fee}}' },
            { key: 'zero', account: { path: 'payees/payee:{{payee}}' }, amount: '0' },
            { key: 'payee', account: { path: 'payees/payee:{{payee}}' }, amount: '{{gross}} - {{fee}} - {{fee}}' },
          ],
        },
        {
          type: 'skipping',
          postLinesAs: 'skip_zero_lines',
          lines: [
            { key: 'cash', account: { path: 'cash' }, amount: '{{amount}}' },
            { key: 'zero', account: { path: 'fees' }, amount: '0' },
            { key: 'payee', account: { path: 'payees/payee:{{payee}}' }, amount: '{{amount}}' },
          ],
        },
      ],
    },
  };
  beforeAll(async () => {
    expect((await call(STORE, { schema })).data.storeSchema.__typename).toBe('StoreSchemaResult');
    expect(
      (
        await call(
          'mutation { createLedger(ik: "shaped", ledger: { name: "Shaped" }, schema: { key: "shapes" }) { __typename } }',
        )
      ).data.createLedger.__typename,
    ).toBe('CreateLedgerResult');
  });

  it('repeat a line once per element of an array parameter, element fields first', async () => {
    const result = await post(
      'run-1',
      {
        type: 'payout',
        parameters: {
          run: 'r1',
          total: '-300',
          payees: [
            { payee: 'ann', amount: '-100' },
            { payee: 'ben', amount: '-200' },
          ],
        },
      },
      'shaped',
    );
    expect(result.__typename).toBe('AddLedgerEntryResult');
    expect(
      result.lines.map((l: { key: string; amount: string; account: { path: string }; tags: unknown }) => [
        l.key,
        l.amount,
        l.account.path,
        l.tags,
      ]),
    ).toEqual([
      ['cash', '-300', 'cash', [{ key: 'run', value: 'r1' }]],
      ['payee.0', '-100', 'payees/payee:ann', [{ key: 'payee', value: 'ann' }]],
      ['payee.1', '-200', 'payees/payee:ben', [{ key: 'payee', value: 'ben' }]],
    ]);
  });

  it('refuse a repeated parameter that is not an array of string objects', async () => {
    for (const payees of [
      'ann',
      [{ payee: 'ann', amount: { cents: '5' } }],
      [['ann']],
      Array.from({ length: 31 }, () => ({ payee: 'x', amount: '0' })),
    ]) {
      const result = await post('bad-run', { type: 'payout', parameters: { run: 'r2', total: '0', payees } }, 'shaped');
      expect(result).toMatchObject({ __typename: 'BadRequestError', code: 'entry_parameters_invalid' });
    }
    const missing = await post('bad-run', { type: 'payout', parameters: { run: 'r2', total: '0' } }, 'shaped');
    expect(missing).toMatchObject({ __typename: 'BadRequestError', code: 'entry_parameters_invalid' });
    expect(missing.message).toContain('payees');
  });

  it('net lines of one account and drop net-zero lines (net_amounts)', async () => {
    const result = await post(
      'net-1',
      { type: 'netted', parameters: { gross: '1000', fee: '30', payee: 'ann' } },
      'shaped',
    );
    expect(result.lines.map((l: { key: string; amount: string }) => [l.key, l.amount])).toEqual([
      ['in', '970'],
      ['fee', '30'],
      ['zero', '940'],
    ]);
  });

  it('drop zero lines (skip_zero_lines), keeping them when every line is zero', async () => {
    const some = await post('skip-1', { type: 'skipping', parameters: { amount: '5', payee: 'ben' } }, 'shaped');
    expect(some.lines.map((l: { key: string }) => l.key)).toEqual(['cash', 'payee']);
    const none = await post('skip-2', { type: 'skipping', parameters: { amount: '0', payee: 'ben' } }, 'shaped');
    expect(none.lines.map((l: { key: string }) => l.key)).toEqual(['cash', 'zero', 'payee']);
  });

  it('refuse a schema that mixes ownBalance and totalBalance conditions', async () => {
    const mixed = structuredClone(schema) as typeof schema & { ledgerEntries: { types: Record<string, unknown>[] } };
    mixed.key = 'mixed';
    mixed.ledgerEntries.types.push({
      type: 'own',
      lines: [
        { key: 'a', account: { path: 'cash' }, amount: '1' },
        { key: 'b', account: { path: 'fees' }, amount: '1' },
      ],
      conditions: [{ account: { path: 'cash' }, postcondition: { ownBalance: { gte: '0' } } }],
    });
    expect((await call(STORE, { schema: mixed })).data.storeSchema).toMatchObject({
      __typename: 'BadRequestError',
      code: 'invalid_input_provided',
    });
  });
});
