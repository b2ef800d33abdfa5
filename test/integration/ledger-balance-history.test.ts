import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Balances over time through the API: at a moment, over a period, as series, on ledgers whose
// day starts at another offset than UTC; backdated entries; the granularity rules and malformed
// moments; eventual accounts read before and after the fold.

let server: TestServer;
let alice: TestWorkspace;

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, alice.token, query, variables)).body;
const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on BadRequestError { code message } }
}`;

async function ledgerWithAccounts(ik: string, offset: string, consistency = 'eventual') {
  await call(
    `mutation($ik: SafeString!, $offset: UTCOffset!) { createLedger(ik: $ik, ledger: { name: "L", balanceUTCOffset: $offset }) { __typename } }`,
    { ik, offset },
  );
  const created = await call(
    `mutation($ik: SafeString!, $c: BalanceUpdateConsistencyMode!) { createLedgerAccounts(ledger: { ik: $ik }, ledgerAccounts: [
    { ik: "bank", name: "Bank", type: asset, consistencyConfig: { ownBalanceUpdates: $c, totalBalanceUpdates: $c } },
    { ik: "users", name: "Users", type: liability, consistencyConfig: { ownBalanceUpdates: $c, totalBalanceUpdates: $c },
      childLedgerAccounts: [{ ik: "alice", name: "Alice" }, { ik: "bob", name: "Bob" }] },
    { ik: "fx", name: "FX", type: asset, currencyMode: multi },
    { ik: "fx-users", name: "FX users", type: liability, currencyMode: multi, childLedgerAccounts: [{ ik: "carol", name: "Carol" }] }
  ]) { __typename } }`,
    { ik, c: consistency },
  );
  expect(created.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
}

/** Posts `amount` from users/<user> to bank at `posted`. */
async function fund(ledger: string, ik: string, posted: string, amount: string, user = 'alice') {
  const result = await call(POST, {
    ik,
    entry: {
      ledger: { ik: ledger },
      posted,
      lines: [
        { account: { path: 'bank' }, amount },
        { account: { path: `users/${user}` }, amount },
      ],
    },
  });
  expect(result.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
}

const account = (ledger: string, path: string, fields: string) =>
  call(`{ ledgerAccount(ledgerAccount: { path: "${path}", ledger: { ik: "${ledger}" } }) { ${fields} } }`);

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('balances at a moment and over a period, at the ledger offset', () => {
  beforeAll(async () => {
    await ledgerWithAccounts('ist', '+05:30');
    // Local (+05:30) times: 2026-05-31T23:59, 2026-06-01T00:00, 2026-06-01T05:10, 2026-06-30T23:30, 2026-07-01T00:29
    await fund('ist', 'e1', '2026-05-31T18:29:00Z', '100');
    await fund('ist', 'e2', '2026-05-31T18:30:00Z', '20', 'bob');
    await fund('ist', 'e3', '2026-05-31T23:40:00Z', '3');
    await fund('ist', 'e4', '2026-06-30T18:00:00Z', '4000', 'bob');
    await fund('ist', 'e5', '2026-06-30T18:59:59.999Z', '50000');
  });

  it('reads the balance at the end of a year, month, day or hour of local time', async () => {
    const at = (moment: string) =>
      account('ist', 'bank', `ownBalance(at: "${moment}")`).then((body) => body.data.ledgerAccount.ownBalance);
    expect(await at('2026-05')).toBe('100');
    expect(await at('2026-05-31')).toBe('100');
    expect(await at('2026-06-01')).toBe('123');
    expect(await at('2026-06-01T04')).toBe('120');
    expect(await at('2026-06-01T05')).toBe('123');
    expect(await at('2026-6-1T5')).toBe('123');
    expect(await at('2026-06')).toBe('4123');
    expect(await at('2026-07-01T00')).toBe('54123');
    expect(await at('2026')).toBe('54123');
    expect(await at('2025')).toBe('0');
    expect(await at('9999-12-31T23')).toBe('54123');
    const latest = await account('ist', 'bank', 'ownBalance balance');
    expect(latest.data.ledgerAccount).toEqual({ ownBalance: '54123', balance: '54123' });
  });

  it('reads own, child and total figures at a moment and over periods of every form', async () => {
    const body = await account(
      'ist',
      'users',
      `
      ownBalance(at: "2026-06") childBalance(at: "2026-06") balance(at: "2026-06")
      may: balanceChange(period: "2026-05") june: balanceChange(period: "2026-06") q2: balanceChange(period: "2026-Q2")
      q3: childBalanceChange(period: "2026-Q3") day: balanceChange(period: "2026-06-01") hour: childBalanceChange(period: "2026-06-01T05")
      own: ownBalanceChange(period: "2026")
      balanceChanges(period: "2026-06") { nodes { currency { code } amount } pageInfo { hasNextPage } }
      balances(at: "2026-05-31") { nodes { currency { code } amount } }`,
    );
    expect(body.data.ledgerAccount).toEqual({
      ownBalance: '0',
      childBalance: '4123',
      balance: '4123',
      may: '100',
      june: '4023',
      q2: '4123',
      q3: '50000',
      day: '23',
      hour: '3',
      own: '0',
      balanceChanges: { nodes: [{ currency: { code: 'USD' }, amount: '4023' }], pageInfo: { hasNextPage: false } },
      balances: { nodes: [{ currency: { code: 'USD' }, amount: '100' }] },
    });
  });

  it('answers a month of daily balances and changes, and walks backwards with a negative duration', async () => {
    const body = await account(
      'ist',
      'bank',
      `
      balancesDuring(startTime: "2026-06", duration: 30, granularity: daily) {
        startTime endTime granularity nodes { at amount { amount currency { code } } } pageInfo { hasNextPage hasPreviousPage } }
      back: balanceChangesDuring(startTime: "2026-06", duration: -2, granularity: daily) {
        startTime endTime nodes { period amount { amount } } }`,
    );
    const series = body.data.ledgerAccount.balancesDuring;
    expect(series).toMatchObject({
      startTime: '2026-06-01',
      endTime: '2026-06-30',
      granularity: 'daily',
      pageInfo: { hasNextPage: false, hasPreviousPage: false },
    });
    expect(series.nodes).toHaveLength(30);
    expect(series.nodes[0]).toEqual({ at: '2026-06-01', amount: { amount: '123', currency: { code: 'USD' } } });
    expect(series.nodes[1].amount.amount).toBe('123');
    expect(series.nodes[29]).toMatchObject({ at: '2026-06-30', amount: { amount: '4123' } });
    expect(body.data.ledgerAccount.back).toEqual({
      startTime: '2026-05-30',
      endTime: '2026-05-31',
      nodes: [
        { period: '2026-05-30', amount: { amount: '0' } },
        { period: '2026-05-31', amount: { amount: '100' } },
      ],
    });
  });

  it('pages a series longer than a page with signed cursors, forward and back', async () => {
    const query = (args: string) =>
      account(
        'ist',
        'bank',
        `ownBalancesDuring(startTime: "2026", duration: 1500, granularity: hourly${args}) {
      nodes { at amount { amount } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }`,
      ).then((body) => body.data?.ledgerAccount?.ownBalancesDuring ?? body);
    const first = await query('');
    expect(first.nodes).toHaveLength(1000);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await query(`, after: "${first.pageInfo.endCursor}"`);
    expect(second.nodes).toHaveLength(500);
    expect(second.nodes[0].at).toBe('2026-02-11T16');
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    // 1500 hours from 2026-01-01T00 end at 2026-03-04T11: before any posting.
    expect(second.nodes[499]).toEqual({ at: '2026-03-04T11', amount: { amount: '0' } });
    const back = await query(`, last: 3, before: "${second.pageInfo.startCursor}"`);
    expect(back.nodes.map((node: { at: string }) => node.at)).toEqual([
      '2026-02-11T13',
      '2026-02-11T14',
      '2026-02-11T15',
    ]);
    const tampered = await query(`, after: "${first.pageInfo.endCursor.slice(0, -2)}xx"`);
    expect(tampered.errors[0].extensions.code).toBe('invalid_input_provided');
  });

  it.each([
    ['monthly', -70_000_000],
    ['monthly', 2 ** 31 - 1],
    ['daily', -(2 ** 31)],
    ['hourly', 70_000_000],
  ])(
    'refuses a %s series of %i buckets, past the calendar or past what a date can hold',
    async (granularity, duration) => {
      const body = await account(
        'ist',
        'bank',
        `ownBalancesDuring(startTime: "2026", duration: ${duration}, granularity: ${granularity}) { nodes { at } }`,
      );
      expect(body.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
      expect(body.errors?.[0]?.message).toBe('The series must stay within the years 1970 to 9999.');
    },
  );

  it('shows a backdated entry in every historical read', async () => {
    const before = await account(
      'ist',
      'users/alice',
      'ownBalance(at: "2026-05-15") ownBalanceChange(period: "2026-05")',
    );
    expect(before.data.ledgerAccount).toEqual({ ownBalance: '0', ownBalanceChange: '100' });
    await fund('ist', 'backdated', '2026-05-10T00:00:00+05:30', '7');
    const after = await account(
      'ist',
      'users/alice',
      `mid: ownBalance(at: "2026-05-15") ownBalanceChange(period: "2026-05") ownBalance
      ownBalancesDuring(startTime: "2026-05", duration: 11, granularity: daily) { nodes { at amount { amount } } }`,
    );
    expect(after.data.ledgerAccount).toMatchObject({ mid: '7', ownBalance: '50110', ownBalanceChange: '107' });
    expect(after.data.ledgerAccount.ownBalancesDuring.nodes.slice(8)).toEqual([
      { at: '2026-05-09', amount: { amount: '0' } },
      { at: '2026-05-10', amount: { amount: '7' } },
      { at: '2026-05-11', amount: { amount: '7' } },
    ]);
  });
});

describe('day boundaries at other offsets', () => {
  it.each([
    ['+05:45', '2026-03-01T18:14:59Z', '2026-03-01T18:15:00Z'],
    ['-03:30', '2026-03-02T03:29:59Z', '2026-03-02T03:30:00Z'],
    ['-09:30', '2026-03-02T09:29:59Z', '2026-03-02T09:30:00Z'],
    ['-08:00', '2026-03-02T07:59:59Z', '2026-03-02T08:00:00Z'],
    ['+00:00', '2026-03-01T23:59:59Z', '2026-03-02T00:00:00Z'],
  ])(
    '%s: the last instant of 1 March local counts in March, the next in 2 March',
    async (offset, lastOfDay, firstOfNext) => {
      const ledger = `tz${offset.replace(/[+:]/g, '').replace('-', 'm')}`;
      await ledgerWithAccounts(ledger, offset);
      await fund(ledger, 'a', lastOfDay, '1');
      await fund(ledger, 'b', firstOfNext, '10');
      const body = await account(
        ledger,
        'bank',
        `ownBalance(at: "2026-03-01") d1: ownBalanceChange(period: "2026-03-01")
      d2: ownBalanceChange(period: "2026-03-02") feb: ownBalanceChange(period: "2026-02")
      h: ownBalanceChangesDuring(startTime: "2026-03-01", duration: 24, granularity: hourly) { nodes { period amount { amount } } }`,
      );
      expect(body.data.ledgerAccount).toMatchObject({ ownBalance: '1', d1: '1', d2: '10', feb: '0' });
      expect(body.data.ledgerAccount.h.nodes[23]).toEqual({ period: '2026-03-01T23', amount: { amount: '1' } });
      expect(
        body.data.ledgerAccount.h.nodes
          .slice(0, 23)
          .every((node: { amount: { amount: string } }) => node.amount.amount === '0'),
      ).toBe(true);
    },
  );
});

describe('typed errors for series and moments that do not exist', () => {
  it.each([
    [
      'a granularity as long as the start span',
      'ownBalancesDuring(startTime: "2026-05", duration: 3, granularity: monthly) { nodes { at } }',
    ],
    [
      'a granularity longer than the start span',
      'ownBalancesDuring(startTime: "2026-05-03", duration: 3, granularity: daily) { nodes { at } }',
    ],
    [
      'an hour start',
      'ownBalanceChangesDuring(startTime: "2026-05-03T04", duration: 3, granularity: hourly) { nodes { period } }',
    ],
    ['a zero duration', 'ownBalancesDuring(startTime: "2026", duration: 0, granularity: monthly) { nodes { at } }'],
    [
      'a series before 1970',
      'ownBalancesDuring(startTime: "1970", duration: -1, granularity: monthly) { nodes { at } }',
    ],
    ['a series past 9999', 'ownBalancesDuring(startTime: "9999", duration: 13, granularity: monthly) { nodes { at } }'],
    [
      'a page over 1000',
      'ownBalancesDuring(startTime: "2026", duration: 3, granularity: monthly, first: 1001) { nodes { at } }',
    ],
    ['month 13', 'ownBalance(at: "2026-13")'],
    ['31 April', 'ownBalance(at: "2026-04-31")'],
    ['hour 24', 'ownBalance(at: "2026-04-30T24")'],
    ['a year before 1970', 'ownBalance(at: "1969")'],
    ['a quarter moment', 'ownBalance(at: "2026-Q1")'],
    ['quarter 5', 'ownBalanceChange(period: "2026-Q5")'],
    ['29 February 2027', 'ownBalanceChange(period: "2027-02-29")'],
    ['a strong read of an eventual account', 'ownBalance(consistencyMode: strong)'],
    ['a strong total read of an eventual account', 'balances(consistencyMode: strong) { nodes { amount } }'],
  ])('%s is invalid_input_provided or strong_consistency_unavailable, with no data', async (_name, field) => {
    const body = await account('ist', 'bank', field);
    expect(body.data?.ledgerAccount ?? null).toBeNull();
    expect(['invalid_input_provided', 'strong_consistency_unavailable']).toContain(body.errors?.[0]?.extensions?.code);
    if (field.includes('strong')) expect(body.errors?.[0]?.extensions?.code).toBe('strong_consistency_unavailable');
  });

  it('requires a currency for a series of a multi-currency account, and answers per currency with one', async () => {
    await call(POST, {
      ik: 'fx-1',
      entry: {
        ledger: { ik: 'ist' },
        posted: '2026-06-02T00:00:00Z',
        lines: [
          { account: { path: 'fx' }, amount: '5', currency: { code: 'EUR' } },
          { account: { path: 'fx-users/carol' }, amount: '5', currency: { code: 'EUR' } },
          { account: { path: 'fx' }, amount: '9', currency: { code: 'GBP' } },
          { account: { path: 'fx-users/carol' }, amount: '9', currency: { code: 'GBP' } },
        ],
      },
    });
    const missing = await account(
      'ist',
      'fx',
      'balancesDuring(startTime: "2026-06", duration: 2, granularity: daily) { nodes { at } }',
    );
    expect(missing.errors?.[0]?.extensions?.code).toBe('invalid_input_provided');
    const body = await account(
      'ist',
      'fx-users',
      `balanceChanges(period: "2026-06") { nodes { currency { code } amount } }
      childBalanceChangesDuring(currency: { code: GBP }, startTime: "2026-06", duration: 2, granularity: daily) { nodes { period amount { amount currency { code } } } }`,
    );
    expect(body.data.ledgerAccount.balanceChanges.nodes).toEqual([
      { currency: { code: 'EUR' }, amount: '5' },
      { currency: { code: 'GBP' }, amount: '9' },
    ]);
    expect(body.data.ledgerAccount.childBalanceChangesDuring.nodes).toEqual([
      { period: '2026-06-01', amount: { amount: '0', currency: { code: 'GBP' } } },
      { period: '2026-06-02', amount: { amount: '9', currency: { code: 'GBP' } } },
    ]);
  });
});

describe('consistency', () => {
  it('strong accounts update their balance row in the posting, its hour kept open on the row; reads agree either way', async () => {
    await ledgerWithAccounts('strong', '+00:00', 'strong');
    await fund('strong', 's1', '2026-01-05T10:00:00Z', '11');
    // Right after the posting: the row holds the amount, and its hour as the row's open hour; nothing is queued.
    const [row] = await server.db.sql<{ balance: string; open: string; queued: number }[]>`
      select b.own_balance::text as balance, b.open_amount::text as open,
             (select count(*)::int from ledger_balance_queue q where q.workspace_id = b.workspace_id and q.account_id = b.account_id) as queued
      from ledger_account_balances b join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
      where a.path = 'bank' and a.ledger_id = (select id from ledgers where ik = 'strong' and workspace_id = ${alice.workspaceId})`;
    expect(row).toEqual({ balance: '11', open: '11', queued: 0 });
    const strong = await account(
      'strong',
      'bank',
      'ownBalance(consistencyMode: strong) balance(consistencyMode: strong, at: "2026-01") ownBalanceChange(period: "2026-01-05T10")',
    );
    expect(strong.data.ledgerAccount).toEqual({ ownBalance: '11', balance: '11', ownBalanceChange: '11' });
    // Children inherit the strong configuration of users.
    const child = await account(
      'strong',
      'users',
      'balance(consistencyMode: strong) childBalance(consistencyMode: use_account)',
    );
    expect(child.data.ledgerAccount).toEqual({ balance: '11', childBalance: '11' });
  });

  it('an eventual account takes postings while its balance row is locked; a strong one makes them wait', async () => {
    await call(`mutation { createLedger(ik: "locks", ledger: { name: "Locks" }) { __typename } }`);
    await call(`mutation { createLedgerAccounts(ledger: { ik: "locks" }, ledgerAccounts: [
      { ik: "hot-eventual", name: "E", type: asset, consistencyConfig: { ownBalanceUpdates: eventual } },
      { ik: "hot-strong", name: "S", type: asset, consistencyConfig: { ownBalanceUpdates: strong } },
      { ik: "counter", name: "C", type: liability, consistencyConfig: { ownBalanceUpdates: eventual } }]) { __typename } }`);
    const post = (ik: string, path: string) =>
      call(POST, {
        ik,
        entry: {
          ledger: { ik: 'locks' },
          lines: [
            { account: { path }, amount: '1' },
            { account: { path: 'counter' }, amount: '1' },
          ],
        },
      });
    await post('warm-e', 'hot-eventual');
    await post('warm-s', 'hot-strong');
    const rowsExist = async () =>
      (
        await server.db.sql`
      select 1 from ledger_account_balances b join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
      where a.path in ('hot-eventual', 'hot-strong') and a.workspace_id = ${alice.workspaceId}`
      ).length === 2;
    const deadline = Date.now() + 10_000;
    while (!(await rowsExist()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));

    const holder = await server.db.sql.reserve();
    try {
      await holder`begin`;
      await holder`select 1 from ledger_account_balances b join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
                   where a.path in ('hot-eventual', 'hot-strong') and a.workspace_id = ${alice.workspaceId} for update of b`;
      const eventual = await Promise.all([
        post('e1', 'hot-eventual'),
        post('e2', 'hot-eventual'),
        post('e3', 'hot-eventual'),
      ]);
      for (const result of eventual) expect(result.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
      let strongDone = false;
      const strong = post('s1', 'hot-strong').then((result) => {
        strongDone = true;
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(strongDone).toBe(false);
      await holder`rollback`;
      expect((await strong).data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
    } finally {
      holder.release();
    }
    const balances = await account('locks', 'hot-eventual', 'ownBalance');
    expect(balances.data.ledgerAccount.ownBalance).toBe('4');
  });

  it('rebuilds history from lines written outside the posting path, as the upgrade migration does', async () => {
    await ledgerWithAccounts('loaded', '-09:30', 'strong');
    await fund('loaded', 'posted-1', '2026-02-10T12:00:00Z', '5');
    const [ledger] = await server.db.sql<
      { id: string }[]
    >`select id from ledgers where ik = 'loaded' and workspace_id = ${alice.workspaceId}`;
    const ids = new Map(
      (
        await server.db.sql<
          { id: string; path: string }[]
        >`select id, path from ledger_accounts where ledger_id = ${ledger.id}`
      ).map((row) => [row.path, row.id]),
    );
    // A bulk load: 48 entries, one per hour from 2026-03-01T00Z, written straight into the tables.
    await server.db.sql`
      insert into ledger_entries (workspace_id, ledger_id, id, ik, posted, request_hash)
      select ${alice.workspaceId}, ${ledger.id}, 'ent_bulk_' || g, 'bulk-' || g, timestamptz '2026-03-01T00:00:00Z' + g * interval '1 hour', 'bulk'
      from generate_series(0, 47) g`;
    await server.db.sql`
      insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, posted, created)
      select ${alice.workspaceId}, ${ledger.id}, 'line_bulk_' || g || '_' || p, 'ent_bulk_' || g, p,
             case p when 1 then ${ids.get('bank')!} else ${ids.get('users/alice')!} end, 'USD', 10, timestamptz '2026-03-01T00:00:00Z' + g * interval '1 hour', now()
      from generate_series(0, 47) g cross join (values (1), (2)) as v(p)`;
    // Lines written behind the posting's back: stored balances and history no longer match them.
    const found = await checkLedgerInvariants(server.db.sql, ledger.id);
    expect(new Set(found.map((violation) => violation.check))).toEqual(
      new Set(['stored balance equals the sum of lines', 'balance history equals the lines']),
    );
    await server.db.sql`select rebuild_balance_history(${ledger.id})`;
    expect(await checkLedgerInvariants(server.db.sql, ledger.id)).toEqual([]);
    // At -09:30, 2026-03-01T00Z is 28 February 14:30 local: 10 of the 48 hours fall in February.
    const body = await account(
      'loaded',
      'bank',
      'ownBalance feb: ownBalanceChange(period: "2026-02") mar: ownBalanceChange(period: "2026-03")',
    );
    expect(body.data.ledgerAccount).toEqual({ ownBalance: '485', feb: '105', mar: '380' });
  });

  it('the fold empties the queue and leaves every read and invariant as before', async () => {
    const reads = () =>
      account(
        'ist',
        'users',
        `balance ownBalance childBalance(at: "2026-06") balanceChange(period: "2026-Q2")
      balancesDuring(startTime: "2026", duration: 12, granularity: monthly) { nodes { amount { amount } } }`,
      ).then((body) => body.data.ledgerAccount);
    const before = await reads();
    const deadline = Date.now() + 10_000;
    while ((await server.db.sql`select 1 from ledger_balance_queue limit 1`).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await server.db.sql`select 1 from ledger_balance_queue limit 1`).length).toBe(0);
    expect(await reads()).toEqual(before);
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});
