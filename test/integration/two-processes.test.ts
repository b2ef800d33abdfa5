import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { gql } from '../support/graphql.js';
import { startTally, stopTally, type TallyProcess } from '../support/tallyProcess.js';
import { fetchToken } from '../support/token.js';

// Two Tally processes on one PostgreSQL, as behind a load balancer. Each groups its own
// postings; together they post to the same strong accounts in opposite orders, with conditions
// that hold and fail, and send every ik to both processes. No deadlock surfaces, no update is
// lost, every ik names at most one entry, and the ledger's invariants hold. Each process holds the
// ledgers and accounts it has read: a change made through the other one is obeyed at once.

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename
    ... on AddLedgerEntryResult { isIkReplay entry { id } }
    ... on Error { code message }
  }
}`;
const BALANCE = `query($path: String!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: "shared" } }) { ownBalance } }`;
const CLIENT = { BOOTSTRAP_CLIENT_ID: 'two-processes', BOOTSTRAP_CLIENT_SECRET: 'two-processes-secret' };
const FUNDS = 12;

let db: TestDatabase;
let processes: TallyProcess[] = [];
let tokens: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // Started together: both migrate and bootstrap the same database at once.
  processes = await Promise.all([0, 1].map(() => startTally({ DATABASE_URL: db.url, ...CLIENT })));
  tokens = await Promise.all(
    processes.map((tally) => fetchToken(tally.baseUrl, CLIENT.BOOTSTRAP_CLIENT_ID, CLIENT.BOOTSTRAP_CLIENT_SECRET)),
  );
  const call = (query: string) => gql(processes[0].baseUrl, tokens[0], query);
  await call('mutation { createLedger(ik: "shared", ledger: { name: "Shared" }) { __typename } }');
  const strong = '{ ownBalanceUpdates: strong }';
  const created = await call(`mutation { createLedgerAccounts(ledger: { ik: "shared" }, ledgerAccounts: [
    { ik: "a", name: "A", type: asset, consistencyConfig: ${strong} },
    { ik: "b", name: "B", type: asset, consistencyConfig: ${strong} },
    { ik: "equity", name: "Equity", type: liability }
  ]) { __typename } }`);
  expect(created.body.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
  for (const path of ['a', 'b']) {
    const funded = await gql(processes[0].baseUrl, tokens[0], POST, {
      ik: `fund-${path}`,
      entry: {
        ledger: { ik: 'shared' },
        lines: [
          { account: { path }, amount: String(FUNDS) },
          { account: { path: 'equity' }, amount: String(FUNDS) },
        ],
      },
    });
    expect(funded.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
  }
}, 120_000);
afterAll(async () => {
  await Promise.all(processes.map((tally) => stopTally(tally)));
  await db?.drop();
});

type Answer = { __typename: string; isIkReplay?: boolean; entry?: { id: string }; code?: string };

/** A move of `amount` from one strong asset to the other, refused if it would overdraw the source. */
const move = (from: string, to: string, amount: number) => ({
  ledger: { ik: 'shared' },
  lines: [
    { account: { path: from }, amount: String(-amount) },
    { account: { path: to }, amount: String(amount) },
  ],
  conditions: [{ account: { path: from }, postcondition: { ownBalance: { gte: '0' } } }],
});

describe('two processes on one database', () => {
  it('post to the same accounts in opposite orders with no deadlock, lost update or duplicate ik', async () => {
    const CLIENTS = 6;
    const REQUESTS = 25;
    const answers = new Map<string, Answer[]>();
    await Promise.all(
      processes.flatMap((tally, side) =>
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let n = 0; n < REQUESTS; n++) {
            // Both processes send the same ik with the same entry: one posts it, the other replays it
            // (or is refused too, when the condition fails).
            const ik = `move-${client}-${n}`;
            // Half the clients drain a into b faster than the other half refills it: a runs dry, refusals follow.
            const [from, to] = client % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
            const amount = client % 2 === 0 ? 1 + (n % 5) : 1 + (n % 2);
            const { status, body } = await gql(tally.baseUrl, tokens[side], POST, {
              ik,
              entry: move(from, to, amount),
            });
            expect(status).toBe(200);
            const answer = body.data.addLedgerEntry as Answer;
            answers.set(ik, [...(answers.get(ik) ?? []), answer]);
          }
        }),
      ),
    );

    const written = new Set<string>();
    for (const [ik, pair] of answers) {
      expect(pair).toHaveLength(2);
      for (const answer of pair) {
        if (answer.__typename !== 'AddLedgerEntryResult')
          expect(answer, ik).toMatchObject({ code: 'entry_condition_failed' });
      }
      const results = pair.filter((answer) => answer.__typename === 'AddLedgerEntryResult');
      // Whoever answered with the entry names the same one, and only one of them wrote it.
      expect(new Set(results.map((answer) => answer.entry!.id)).size, ik).toBeLessThanOrEqual(1);
      expect(results.filter((answer) => !answer.isIkReplay).length, ik).toBe(results.length > 0 ? 1 : 0);
      if (results.length > 0) written.add(results[0].entry!.id);
    }
    // Some moves were refused and many written, so the run exercised both.
    expect(written.size).toBeGreaterThan(CLIENTS * REQUESTS * 0.3);
    expect(written.size).toBeLessThan(answers.size);

    const [{ entries }] = await db.sql<{ entries: number }[]>`
      select count(*)::int as entries from ledger_entries e join ledgers g on g.workspace_id = e.workspace_id and g.id = e.ledger_id
      where g.ik = 'shared' and e.ik like 'move-%'`;
    expect(entries).toBe(written.size);
    // No update lost: the strong balances equal their lines, none went below zero, and the total is conserved.
    const balances = await Promise.all(
      ['a', 'b'].map(async (path) =>
        BigInt((await gql(processes[1].baseUrl, tokens[1], BALANCE, { path })).body.data.ledgerAccount.ownBalance),
      ),
    );
    for (const balance of balances) expect(balance >= 0n).toBe(true);
    expect(balances[0] + balances[1]).toBe(BigInt(2 * FUNDS));
    expect(await checkLedgerInvariants(db.sql)).toEqual([]);
  }, 120_000);

  it('obey at once a change of an account or a ledger made through the other process', async () => {
    const [first, second] = processes.map(
      (tally, side) => (query: string, variables?: Record<string, unknown>) =>
        gql(tally.baseUrl, tokens[side], query, variables),
    );
    await first('mutation { createLedger(ik: "changing", ledger: { name: "Changing" }) { __typename } }');
    await first(`mutation { createLedgerAccounts(ledger: { ik: "changing" }, ledgerAccounts: [
      { ik: "c", name: "C", type: asset, consistencyConfig: { ownBalanceUpdates: eventual } },
      { ik: "d", name: "D", type: liability }
    ]) { __typename } }`);
    const entry = (amount: number) => ({
      ledger: { ik: 'changing' },
      lines: [
        { account: { path: 'c' }, amount: String(amount) },
        { account: { path: 'd' }, amount: String(amount) },
      ],
    });
    const postThroughFirst = async (ik: string, amount: number) =>
      (await first(POST, { ik, entry: entry(amount) })).body.data.addLedgerEntry as Answer;
    const unfolded = async () =>
      (
        await db.sql<{ n: number }[]>`
          select count(*)::int as n from ledger_balance_queue q join ledger_accounts a
            on a.workspace_id = q.workspace_id and a.id = q.account_id
          where a.ik = 'c' and not q.balance_applied`
      )[0].n;

    // The first process reads the accounts (eventual: the delta is queued for the fold) and holds them.
    expect(await postThroughFirst('c-1', 1)).toMatchObject({ __typename: 'AddLedgerEntryResult' });
    const queued = await unfolded();
    expect(queued).toBeGreaterThan(0);

    // Made strong through the second process, c's balance row takes the next posting's delta: nothing more queued.
    const updated = await second(`mutation {
      updateLedgerAccount(ledgerAccount: { path: "c", ledger: { ik: "changing" } }, update: { consistencyConfig: { ownBalanceUpdates: strong } }) { __typename } }`);
    expect(updated.body.data.updateLedgerAccount.__typename).toBe('UpdateLedgerAccountResult');
    // Several at once, so that they are posted as groups, which take the accounts as prepared.
    const strongPostings = await Promise.all(Array.from({ length: 8 }, (_, n) => postThroughFirst(`c-2-${n}`, 2)));
    for (const answer of strongPostings)
      expect(answer).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: false });
    expect(await unfolded()).toBe(queued);

    // Deleted through the second process, the ledger takes no entry through the first.
    const deleted = await second('mutation { deleteLedger(ledger: { ik: "changing" }) { __typename } }');
    expect(deleted.body.data.deleteLedger.__typename).toBe('DeleteLedgerResult');
    expect(await postThroughFirst('c-3', 3)).toMatchObject({ __typename: 'BadRequestError', code: 'ledger_not_found' });
    const [{ entries }] = await db.sql<{ entries: number }[]>`
      select count(*)::int as entries from ledger_entries where ik like 'c-%'`;
    expect(entries).toBe(9);
  }, 60_000);
});
