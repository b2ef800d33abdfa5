import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// After posting: lists of entries and lines with their filters and cursors, reversal and
// repost through one ik, history, single lines, and batches that post all or nothing.

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename ... on AddLedgerEntryResult { isIkReplay entry { id } lines { id } } ... on BadRequestError { code message }
  }
}`;
const BATCH = `mutation($entries: [AddLedgerEntryInput!]!) {
  addLedgerEntries(entries: $entries) {
    __typename
    ... on AddLedgerEntriesResult { results { isIkReplay entry { id ik } lines { amount } } }
    ... on AddLedgerEntriesError { code errors { ik code message } }
    ... on BadRequestError { code message }
  }
}`;
const REVERSE = `mutation($id: ID!) {
  reverseLedgerEntry(id: $id) {
    __typename
    ... on ReverseLedgerEntryResult {
      isIkReplay
      reversedLedgerEntry { id isReversed hidden reversedAt reversedBy { id } }
      reversingLedgerEntry { id ik isReversal hidden posted reversalPosition reverses { id } lines { nodes { amount reverses { id } } } }
    }
    ... on BadRequestError { code }
  }
}`;
const ENTRIES = `query($filter: LedgerEntriesFilterSet, $first: Int, $after: String) {
  ledger(ledger: { ik: "books" }) { ledgerEntries(filter: $filter, first: $first, after: $after) { nodes { ik } pageInfo { hasNextPage endCursor } } }
}`;
const LINES = `query($filter: LedgerLinesFilterSet!) {
  ledger(ledger: { ik: "books" }) { lines(filter: $filter, first: 200) { nodes { amount type account { path } } } }
}`;
const BALANCE = `query($path: String!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: "books" } }) { ownBalance } }`;

let server: TestServer;
let workspace: TestWorkspace;
const ledger = { ik: 'books' };
beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('Lifecycle');
  await call('mutation { createLedger(ik: "books", ledger: { name: "Books" }) { __typename } }');
  await call('mutation { createLedger(ik: "other", ledger: { name: "Other" }) { __typename } }');
  const created = await call(`mutation { createLedgerAccounts(ledger: { ik: "books" }, ledgerAccounts: [
    { ik: "bank", name: "Bank", type: asset }, { ik: "alice", name: "Alice", type: liability },
    { ik: "bob", name: "Bob", type: liability }, { ik: "fees", name: "Fees", type: income }]) { __typename } }`);
  expect(created.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
});
afterAll(() => server?.close());

async function call(query: string, variables?: Record<string, unknown>) {
  return (await gql(server.baseUrl, workspace.token, query, variables)).body;
}
const lines = (from: string, to: string, amount: string) => [
  { account: { path: from }, amount },
  { account: { path: to }, amount },
];
const post = async (ik: string, entry: Record<string, unknown>) =>
  (await call(POST, { ik, entry: { ledger, ...entry } })).data.addLedgerEntry;
const entryIks = async (filter?: Record<string, unknown>) => {
  const body = await call(ENTRIES, { filter, first: 200 });
  expect(body.errors).toBeUndefined();
  return body.data.ledger.ledgerEntries.nodes.map((e: { ik: string }) => e.ik);
};
const balance = async (path: string) => (await call(BALANCE, { path })).data.ledgerAccount.ownBalance;

describe('entry and line lists', () => {
  it('list entries newest posted first, filtered by posted, date, tags and type', async () => {
    await post('jan', {
      lines: lines('bank', 'alice', '100'),
      posted: '2026-01-15T10:00:00Z',
      tags: [{ key: 'kind', value: 'deposit' }],
    });
    await post('feb', {
      lines: lines('bank', 'bob', '200'),
      posted: '2026-02-01T02:00:00Z',
      tags: [{ key: 'kind', value: 'wire' }],
    });
    await post('mar', { lines: lines('bank', 'alice', '300'), posted: '2026-03-31T23:30:00Z' });
    expect(await entryIks()).toEqual(['mar', 'feb', 'jan']);
    expect(await entryIks({ posted: { after: '2026-01-31T00:00:00Z', before: '2026-03-01T00:00:00Z' } })).toEqual([
      'feb',
    ]);
    expect(await entryIks({ date: { equalTo: '2026-02-01' } })).toEqual(['feb']);
    expect(await entryIks({ date: { within: '2026-03' } })).toEqual(['mar']);
    expect(await entryIks({ tag: { keyEqualTo: 'kind' } })).toEqual(['feb', 'jan']);
    expect(await entryIks({ tag: { equalTo: { key: 'kind', value: 'wire' } } })).toEqual(['feb']);
    expect(await entryIks({ tag: { notKeyIn: ['kind'] } })).toEqual(['mar']);
    expect(await entryIks({ tag: { contains: { key: 'kind', value: 'pos' } } })).toEqual(['jan']);
  });

  it('honours the ledger offset only in withinBalanceUTCOffset', async () => {
    await call(
      'mutation { createLedger(ik: "india", ledger: { name: "India", balanceUTCOffset: "+05:30" }) { __typename } }',
    );
    const ENTRIES_IN = ENTRIES.replace('"books"', '"india"');
    await call(`mutation { createLedgerAccounts(ledger: { ik: "india" }, ledgerAccounts: [
      { ik: "cash", name: "Cash", type: asset }, { ik: "owed", name: "Owed", type: liability }]) { __typename } }`);
    // 2026-03-31T19:00Z is already April 1st in India.
    await call(POST, {
      ik: 'late',
      entry: { ledger: { ik: 'india' }, lines: lines('cash', 'owed', '5'), posted: '2026-03-31T19:00:00Z' },
    });
    const within = async (filter: Record<string, unknown>) =>
      (await call(ENTRIES_IN, { filter })).data.ledger.ledgerEntries.nodes.map((e: { ik: string }) => e.ik);
    expect(await within({ date: { within: '2026-03' } })).toEqual(['late']);
    expect(await within({ date: { withinBalanceUTCOffset: '2026-03' } })).toEqual([]);
    expect(await within({ date: { withinBalanceUTCOffset: '2026-04' } })).toEqual(['late']);
    const both = await call(ENTRIES_IN, { filter: { date: { within: '2026', withinBalanceUTCOffset: '2026' } } });
    expect(both.errors![0].extensions.code).toBe('invalid_input_provided');
  });

  it('pages through entries posted in the same instant without repeating or skipping one', async () => {
    const posted = '2026-05-05T05:05:05.123456Z';
    for (let i = 0; i < 7; i += 1) await post(`same-${i}`, { lines: lines('bank', 'bob', '1'), posted });
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = (
        await call(ENTRIES, {
          filter: { posted: { after: '2026-05-05T00:00:00Z', before: '2026-05-06T00:00:00Z' } },
          first: 3,
          after,
        })
      ).data.ledger.ledgerEntries;
      seen.push(...page.nodes.map((node: { ik: string }) => node.ik));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `same-${i}`));
  });

  it('list lines by account, path pattern, currency and direction, and refuse a list without an account', async () => {
    const alice = (await call(LINES, { filter: { ledgerAccount: { equalTo: { path: 'alice' } } } })).data.ledger.lines
      .nodes;
    expect(alice.map((l: { amount: string }) => l.amount)).toEqual(['300', '100']);
    const bankDebits = (await call(LINES, { filter: { path: { matches: 'ban*' }, type: { equalTo: 'debit' } } })).data
      .ledger.lines.nodes;
    expect(
      bankDebits.every(
        (l: { type: string; account: { path: string } }) => l.type === 'debit' && l.account.path === 'bank',
      ),
    ).toBe(true);
    const none = await call(LINES, { filter: { currency: { equalTo: { code: 'USD' } } } });
    expect(none.errors![0].extensions.code).toBe('invalid_input_provided');
    const own = await call(
      '{ ledgerAccount(ledgerAccount: { path: "bob", ledger: { ik: "books" } }) { lines(first: 2) { nodes { amount } } ledgerEntries(first: 1) { nodes { ik } } } }',
    );
    expect(own.data.ledgerAccount.lines.nodes).toHaveLength(2);
    expect(own.data.ledgerAccount.ledgerEntries.nodes[0].ik).toMatch(/^same-/);
  });

  it('refuses a cursor from another list', async () => {
    const page = (await call(ENTRIES, { first: 1 })).data.ledger.ledgerEntries;
    const foreign = await call(
      'query($after: String) { ledger(ledger: { ik: "other" }) { ledgerEntries(after: $after) { nodes { id } } } }',
      { after: page.pageInfo.endCursor },
    );
    expect(foreign.errors![0].extensions.code).toBe('invalid_input_provided');
  });
});

describe('reversal and repost', () => {
  it('reverses an entry: negated lines, balances restored, both hidden, a second reversal is a replay', async () => {
    const original = await post('refund-me', {
      lines: lines('bank', 'alice', '40'),
      tags: [{ key: 'kind', value: 'refund' }],
    });
    const before = await balance('alice');
    const reversed = (await call(REVERSE, { id: original.entry.id })).data.reverseLedgerEntry;
    expect(reversed).toMatchObject({
      isIkReplay: false,
      reversedLedgerEntry: {
        id: original.entry.id,
        isReversed: true,
        hidden: true,
        reversedBy: { id: reversed.reversingLedgerEntry.id },
      },
      reversingLedgerEntry: {
        ik: 'refund-me',
        isReversal: true,
        hidden: true,
        reversalPosition: 2,
        reverses: { id: original.entry.id },
      },
    });
    expect(reversed.reversingLedgerEntry.lines.nodes.map((l: { amount: string }) => l.amount)).toEqual(['-40', '-40']);
    expect(reversed.reversingLedgerEntry.lines.nodes[0].reverses.id).toBe(original.lines[0].id);
    expect(BigInt(await balance('alice'))).toBe(BigInt(before) - 40n);
    expect(await entryIks({ tag: { keyEqualTo: 'kind' } })).not.toContain('refund-me');
    expect(await entryIks({ tag: { equalTo: { key: 'kind', value: 'refund' } }, showHidden: true })).toEqual([
      'refund-me',
      'refund-me',
    ]);

    const again = (await call(REVERSE, { id: original.entry.id })).data.reverseLedgerEntry;
    expect(again).toMatchObject({ isIkReplay: true, reversingLedgerEntry: { id: reversed.reversingLedgerEntry.id } });
    const ofReversal = (await call(REVERSE, { id: reversed.reversingLedgerEntry.id })).data.reverseLedgerEntry;
    expect(ofReversal.isIkReplay).toBe(true);
    expect(BigInt(await balance('alice'))).toBe(BigInt(before) - 40n);
    expect((await call(REVERSE, { id: 'ent_missing' })).data.reverseLedgerEntry).toEqual({
      __typename: 'BadRequestError',
      code: 'ledger_entry_not_found',
    });
  });

  it('reposts under the same ik after a reversal, and lists the whole chain in history', async () => {
    const repost = await post('refund-me', { lines: lines('bank', 'alice', '35') });
    expect(repost).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: false });
    expect(await post('refund-me', { lines: lines('bank', 'alice', '35') })).toMatchObject({
      isIkReplay: true,
      entry: { id: repost.entry.id },
    });
    const history = await call(
      '{ ledgerEntryHistory(ledgerEntry: { ik: "refund-me", ledger: { ik: "books" } }) { nodes { reversalPosition isReversal isReversed } } }',
    );
    expect(history.data.ledgerEntryHistory.nodes).toEqual([
      { reversalPosition: 1, isReversal: false, isReversed: true },
      { reversalPosition: 2, isReversal: true, isReversed: false },
      { reversalPosition: 3, isReversal: false, isReversed: false },
    ]);
    const line = await call(
      'query($id: ID!) { ledgerLine(ledgerLine: { id: $id }) { amount ledgerEntry { reversalPosition } } }',
      { id: repost.lines[0].id },
    );
    expect(line.data.ledgerLine).toEqual({ amount: '35', ledgerEntry: { reversalPosition: 3 } });
    expect((await call('{ ledgerLine(ledgerLine: { id: "line_nope" }) { id } }')).data.ledgerLine).toBeNull();
  });
});

describe('addLedgerEntries', () => {
  const item = (ik: string, amount: string, extra: Record<string, unknown> = {}) => ({
    ik,
    entry: { ledger, lines: lines('bank', 'bob', amount), ...extra },
  });

  it('takes no balance lock for eventual accounts: a batch posts while their rows are held', async () => {
    const accounts = await server.db.sql<{ id: string }[]>`
      select id from ledger_accounts where workspace_id = ${workspace.workspaceId} and path in ('bank', 'bob')`;
    const holder = await server.db.sql.reserve();
    try {
      await holder`begin`;
      // Creates or locks both rows, as a posting that updates them under a lock would.
      await holder`
        insert into ledger_account_balances as b (workspace_id, account_id, currency)
        select ${workspace.workspaceId}, t.id, 'USD' from unnest(${accounts.map((row) => row.id)}::text[]) as t(id)
        order by t.id
        on conflict (workspace_id, account_id, currency) do update set line_count = b.line_count where false`;
      const answer = await Promise.race([
        call(BATCH, { entries: [item('unlocked-1', '3'), item('unlocked-2', '4')] }),
        new Promise((resolve) => setTimeout(() => resolve('blocked'), 5000)),
      ]);
      expect((answer as { data: { addLedgerEntries: { __typename: string } } }).data.addLedgerEntries.__typename).toBe(
        'AddLedgerEntriesResult',
      );
    } finally {
      await holder`rollback`;
      holder.release();
    }
  });

  it('posts every entry in order, and a retry reports each replay', async () => {
    const first = (await call(BATCH, { entries: [item('b-1', '7'), item('b-2', '8')] })).data.addLedgerEntries;
    expect(
      first.results.map((r: { isIkReplay: boolean; entry: { ik: string } }) => [r.entry.ik, r.isIkReplay]),
    ).toEqual([
      ['b-1', false],
      ['b-2', false],
    ]);
    const retry = (await call(BATCH, { entries: [item('b-1', '7'), item('b-3', '9')] })).data.addLedgerEntries;
    expect(retry.results.map((r: { isIkReplay: boolean }) => r.isIkReplay)).toEqual([true, false]);
    expect(retry.results[0].entry.id).toBe(first.results[0].entry.id);
  });

  it('posts nothing when one entry fails, and names each failing entry', async () => {
    const before = await balance('bob');
    const failing = (
      await call(BATCH, {
        entries: [
          item('c-1', '5'),
          item('c-2', '5', { lines: [{ account: { path: 'bank' }, amount: '5' }] }),
          item('c-3', '5', { lines: lines('bank', 'nobody', '5') }),
        ],
      })
    ).data.addLedgerEntries;
    expect(failing).toMatchObject({
      __typename: 'AddLedgerEntriesError',
      code: 'ledger_entry_batch_operation_failed',
      errors: [
        { ik: 'c-2', code: 'entry_unbalanced' },
        { ik: 'c-3', code: 'ledger_account_not_found' },
      ],
    });
    const condition = (
      await call(BATCH, {
        entries: [
          item('d-1', '5'),
          item('d-2', '-1', {
            lines: lines('bank', 'bob', '-1000000'),
            conditions: [{ account: { path: 'bob' }, postcondition: { ownBalance: { gte: '0' } } }],
          }),
        ],
      })
    ).data.addLedgerEntries;
    expect(condition).toMatchObject({
      __typename: 'AddLedgerEntriesError',
      errors: [{ ik: 'd-2', code: 'entry_condition_failed' }],
    });
    expect(await balance('bob')).toBe(before);
    expect(await entryIks()).not.toContain('c-1');
    expect(await entryIks()).not.toContain('d-1');
  });

  it('posts nothing when one entry reuses an ik of another request, answering the others as not written', async () => {
    const before = await balance('bob');
    await call(BATCH, { entries: [item('f-1', '2')] });
    const clash = (await call(BATCH, { entries: [item('f-2', '3'), item('f-1', '4'), item('f-3', '5')] })).data
      .addLedgerEntries;
    expect(clash).toMatchObject({
      __typename: 'AddLedgerEntriesError',
      errors: [{ ik: 'f-1', code: 'idempotency_key_reused' }],
    });
    // A condition refusal is named before an ik reuse, whatever their order in the batch.
    const both = (
      await call(BATCH, {
        entries: [
          item('f-1', '4'),
          item('f-4', '-1', {
            lines: lines('bank', 'bob', '-1000000'),
            conditions: [{ account: { path: 'bob' }, postcondition: { ownBalance: { gte: '0' } } }],
          }),
        ],
      })
    ).data.addLedgerEntries;
    expect(both).toMatchObject({ errors: [{ ik: 'f-4', code: 'entry_condition_failed' }] });
    expect(await balance('bob')).toBe((BigInt(before) + 2n).toString());
    expect(await entryIks()).not.toContain('f-2');
    expect(await entryIks()).not.toContain('f-3');
    expect(await entryIks()).not.toContain('f-4');
  });

  it.each([
    ['an empty batch', [], 'invalid_input_provided'],
    ['one ik twice', [item('e-1', '1'), item('e-1', '1')], 'invalid_input_provided'],
    [
      'entries of two ledgers',
      [item('e-2', '1'), { ik: 'e-3', entry: { ledger: { ik: 'other' }, lines: lines('bank', 'bob', '1') } }],
      'invalid_input_provided',
    ],
    [
      'more than 30 lines in all',
      Array.from({ length: 16 }, (_, i) => item(`e-many-${i}`, '1')),
      'ledger_entry_too_many_lines',
    ],
  ])('refuses %s', async (_label, entries, code) => {
    expect((await call(BATCH, { entries })).data.addLedgerEntries).toMatchObject({
      __typename: 'BadRequestError',
      code,
    });
  });

  it('leaves the ledger consistent', async () => {
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});

describe('accounts by ik', () => {
  it('are found by ledger and ik, and lines may name them so', async () => {
    await call(
      'mutation { createLedgerAccounts(ledger: { ik: "books" }, ledgerAccounts: [{ ik: "staff", name: "Staff", type: liability, childLedgerAccounts: [{ ik: "carol", name: "Carol" }] }]) { __typename } }',
    );
    const found = await call('{ ledgerAccount(ledgerAccount: { ik: "carol", ledger: { ik: "books" } }) { path } }');
    expect(found.data.ledgerAccount).toEqual({ path: 'staff/carol' });
    const entry = await post('by-ik', {
      lines: [
        { account: { path: 'bank' }, amount: '4' },
        { account: { ik: 'carol' }, amount: '4' },
      ],
    });
    expect(entry.__typename).toBe('AddLedgerEntryResult');
    expect(await balance('staff/carol')).toBe('4');
    const mismatch = await post('by-ik-2', {
      lines: [
        { account: { path: 'bank' }, amount: '4' },
        { account: { ik: 'carol', path: 'alice' }, amount: '4' },
      ],
    });
    expect(mismatch).toMatchObject({ __typename: 'BadRequestError', code: 'ledger_account_not_found' });
    expect((await call('{ ledgerAccount(ledgerAccount: { ik: "carol" }) { path } }')).errors![0].extensions.code).toBe(
      'invalid_input_provided',
    );
  });
});

describe('groups', () => {
  const GROUP = `query($key: SafeString!, $value: SafeString!) {
    ledger(ledger: { ik: "books" }) {
      ledgerEntryGroup(ledgerEntryGroup: { key: $key, value: $value }) {
        key value created ledgerEntries { nodes { ik } } balances { nodes { account { path } currency { code } ownBalance } }
      }
    }
  }`;

  it('collect the entries that carry them, with per-account sums, and list by key', async () => {
    await post('g-1', { lines: lines('bank', 'alice', '11'), groups: [{ key: 'invoice', value: 'inv-1' }] });
    await post('g-2', {
      lines: lines('bank', 'bob', '22'),
      groups: [
        { key: 'invoice', value: 'inv-1' },
        { key: 'batch', value: 'b-7' },
      ],
    });
    await post('g-3', { lines: lines('bank', 'bob', '5'), groups: [{ key: 'invoice', value: 'inv-2' }] });
    const group = (await call(GROUP, { key: 'invoice', value: 'inv-1' })).data.ledger.ledgerEntryGroup;
    expect(group.ledgerEntries.nodes.map((e: { ik: string }) => e.ik)).toEqual(['g-2', 'g-1']);
    expect(group.balances.nodes).toEqual([
      { account: { path: 'alice' }, currency: { code: 'USD' }, ownBalance: '11' },
      { account: { path: 'bank' }, currency: { code: 'USD' }, ownBalance: '33' },
      { account: { path: 'bob' }, currency: { code: 'USD' }, ownBalance: '22' },
    ]);
    expect(group.created).not.toBeNull();
    const empty = (await call(GROUP, { key: 'invoice', value: 'none' })).data.ledger.ledgerEntryGroup;
    expect(empty).toMatchObject({ created: null, ledgerEntries: { nodes: [] }, balances: { nodes: [] } });
    const root = await call(
      '{ ledgerEntryGroup(ledgerEntryGroup: { ledger: { ik: "books" }, key: "invoice", value: "none" }) { key } }',
    );
    expect(root.data.ledgerEntryGroup).toBeNull();

    const list = await call(
      `{ ledger(ledger: { ik: "books" }) { ledgerEntryGroups(filter: { key: { equalTo: "invoice" } }) { nodes { key value } } } }`,
    );
    expect(list.data.ledger.ledgerEntryGroups.nodes.map((g: { value: string }) => g.value).sort()).toEqual([
      'inv-1',
      'inv-2',
    ]);
    const byBalance = await call(
      `{ ledger(ledger: { ik: "books" }) { ledgerEntryGroups(filter: { balance: { account: { path: { equalTo: "bob" } }, ownBalance: { gte: "20" } } }) { nodes { key value } } } }`,
    );
    expect(byBalance.data.ledger.ledgerEntryGroups.nodes).toEqual([
      { key: 'batch', value: 'b-7' },
      { key: 'invoice', value: 'inv-1' },
    ]);
    const grouped = await entryIks({ group: { equalTo: { key: 'batch', value: 'b-7' } } });
    expect(grouped).toEqual(['g-2']);
  });
});

describe('updateLedgerEntry and migrateLedgerEntry', () => {
  const UPDATE = `mutation($id: ID!, $update: UpdateLedgerEntryInput!) {
    updateLedgerEntry(ledgerEntry: { id: $id }, update: $update) {
      __typename ... on UpdateLedgerEntryResult { entry { tags { key value } groups { key value } lines { nodes { amount } } } } ... on BadRequestError { code }
    }
  }`;
  const MIGRATE = `mutation($input: MigrateLedgerEntryInput!) {
    migrateLedgerEntry(input: $input) {
      __typename
      ... on MigrateLedgerEntryResult { isIkReplay reversedLedgerEntry { id isReversed } reversingLedgerEntry { isReversal } newLedgerEntry { ik reversalPosition lines { nodes { amount } } } }
      ... on BadRequestError { code }
    }
  }`;

  it('adds, updates and removes tags and adds groups, leaving lines alone; reversed entries are immutable', async () => {
    const entry = await post('u-1', {
      lines: lines('bank', 'alice', '3'),
      tags: [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ],
    });
    const updated = (
      await call(UPDATE, {
        id: entry.entry.id,
        update: {
          tags: [
            { key: 'a', value: 'one' },
            { key: 'c', value: '3' },
          ],
          tagsToRemove: [{ key: 'b', value: '2' }],
          groups: [{ key: 'g', value: 'x' }],
        },
      })
    ).data.updateLedgerEntry;
    expect(updated.entry).toEqual({
      tags: [
        { key: 'a', value: 'one' },
        { key: 'c', value: '3' },
      ],
      groups: [{ key: 'g', value: 'x' }],
      lines: { nodes: [{ amount: '3' }, { amount: '3' }] },
    });
    await call(REVERSE, { id: entry.entry.id });
    expect(
      (await call(UPDATE, { id: entry.entry.id, update: { tags: [{ key: 'z', value: '1' }] } })).data.updateLedgerEntry,
    ).toEqual({ __typename: 'BadRequestError', code: 'ledger_entry_immutable' });
  });

  it('replaces an entry under its ik in one step, and answers a repeat as a replay', async () => {
    const entry = await post('m-1', { lines: lines('bank', 'alice', '8') });
    const before = await balance('alice');
    const replacement = { ledger, lines: lines('bank', 'alice', '9') };
    const migrated = (await call(MIGRATE, { input: { id: entry.entry.id, newLedgerEntry: replacement } })).data
      .migrateLedgerEntry;
    expect(migrated).toMatchObject({
      isIkReplay: false,
      reversedLedgerEntry: { id: entry.entry.id, isReversed: true },
      reversingLedgerEntry: { isReversal: true },
      newLedgerEntry: { ik: 'm-1', reversalPosition: 3, lines: { nodes: [{ amount: '9' }, { amount: '9' }] } },
    });
    expect(BigInt(await balance('alice'))).toBe(BigInt(before) + 1n);
    const again = (await call(MIGRATE, { input: { id: entry.entry.id, newLedgerEntry: replacement } })).data
      .migrateLedgerEntry;
    expect(again.isIkReplay).toBe(true);
    const unbalanced = await post('m-2', { lines: lines('bank', 'alice', '1') });
    const refused = (
      await call(MIGRATE, {
        input: {
          id: unbalanced.entry.id,
          newLedgerEntry: { ledger, lines: [{ account: { path: 'bank' }, amount: '1' }] },
        },
      })
    ).data.migrateLedgerEntry;
    expect(refused).toEqual({ __typename: 'BadRequestError', code: 'entry_unbalanced' });
    expect(
      (
        await call('query($id: ID!) { ledgerEntry(ledgerEntry: { id: $id }) { isReversed } }', {
          id: unbalanced.entry.id,
        })
      ).data.ledgerEntry.isReversed,
    ).toBe(false);
  });

  it('keeps the ledger consistent', async () => {
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});
