import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { fetchToken } from '../support/token.js';
import { startTally, stopTally, type TallyProcess } from '../support/tallyProcess.js';

// The fold of eventual balance updates survives a crash: with a fold caught mid-transaction
// (blocked on a row lock after taking queue rows), the server is killed with SIGKILL. Nothing
// it took is lost or counted twice: after a restart the queue drains and the stored balances
// and history equal the lines.

let db: TestDatabase;
let tally: TallyProcess | undefined;
const env = () => ({
  DATABASE_URL: db.url,
  BOOTSTRAP_CLIENT_ID: 'fold',
  BOOTSTRAP_CLIENT_SECRET: 'fold-secret-1234',
  BALANCE_FOLD_INTERVAL_MS: '20',
  BALANCE_FOLD_BATCH_SIZE: '40',
  LOG_LEVEL: 'info',
});

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  if (tally) await stopTally(tally, 'SIGKILL');
  await db?.drop();
});

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const queued = async () =>
  (await db.sql<{ count: number }[]>`select count(*)::int as count from ledger_balance_queue`)[0].count;

describe('the balance fold under a crash', () => {
  it('loses and doubles nothing when the server dies mid-fold', async () => {
    tally = await startTally(env());
    let token = await fetchToken(tally.baseUrl, 'fold', 'fold-secret-1234');
    const call = async (query: string, variables: Record<string, unknown> = {}) =>
      (await gql(tally!.baseUrl, token, query, variables)).body;
    await call('mutation { createLedger(ik: "crash", ledger: { name: "Crash" }) { __typename } }');
    await call(`mutation { createLedgerAccounts(ledger: { ik: "crash" }, ledgerAccounts: [
      { ik: "cash", name: "Cash", type: asset }, { ik: "users", name: "Users", type: liability, childLedgerAccounts: [{ ik: "u1", name: "U1" }, { ik: "u2", name: "U2" }] }
    ]) { __typename } }`);
    const post = (ik: string, user: string, amount: number, posted: string) =>
      call(
        `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
      addLedgerEntry(ik: $ik, entry: $entry) { __typename } }`,
        {
          ik,
          entry: {
            ledger: { ik: 'crash' },
            posted,
            lines: [
              { account: { path: 'cash' }, amount: String(amount) },
              { account: { path: `users/${user}` }, amount: String(amount) },
            ],
          },
        },
      );

    await post('first', 'u1', 1, '2026-01-01T00:00:00Z');
    await waitFor(async () => (await queued()) === 0, 'the first fold');

    // Hold the cash balance row: the next fold takes queue rows, then waits on this lock.
    const holder = await db.sql.reserve();
    await holder`begin`;
    await holder`select 1 from ledger_account_balances b join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
                 where a.path = 'cash' for update of b`;
    let expected = 1n;
    for (let batch = 0; batch < 10; batch += 1) {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => {
          const n = batch * 10 + i + 2;
          expected += BigInt(n);
          return post(`e${n}`, n % 2 === 0 ? 'u1' : 'u2', n, `2026-0${1 + (n % 3)}-1${n % 10}T0${n % 10}:00:00Z`);
        }),
      );
      for (const result of results) expect(result.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
    }
    const waiting = async () =>
      (
        await db.sql`select pid from pg_stat_activity where query like '%foldBalanceQueue%' and wait_event_type = 'Lock'`
      ).length > 0;
    await waitFor(waiting, 'a fold blocked mid-transaction');
    // Reads stay exact while the fold is stuck: stored and queued deltas are summed in one statement.
    const during = await call(
      '{ ledgerAccount(ledgerAccount: { path: "users", ledger: { ik: "crash" } }) { balance } }',
    );
    expect(during.data.ledgerAccount.balance).toBe(expected.toString());

    expect(await stopTally(tally, 'SIGKILL')).toBeNull();
    tally = undefined;
    // The killed server's connection ends; its open fold transaction rolls back.
    // Only this file's database: other files' servers share the PostgreSQL and fold too.
    await db.sql`select pg_terminate_backend(pid) from pg_stat_activity
      where query like '%foldBalanceQueue%' and datname = current_database() and pid <> pg_backend_pid()`;
    await holder`rollback`;
    holder.release();
    expect(await queued()).toBeGreaterThan(0);

    tally = await startTally(env());
    token = await fetchToken(tally.baseUrl, 'fold', 'fold-secret-1234');
    await waitFor(async () => (await queued()) === 0, 'the queue to drain after the restart');
    expect(await checkLedgerInvariants(db.sql)).toEqual([]);
    const after = await call(`{ ledgerAccount(ledgerAccount: { path: "users", ledger: { ik: "crash" } }) {
      balance balanceChange(period: "2026-Q1") } }`);
    expect(after.data.ledgerAccount).toEqual({ balance: expected.toString(), balanceChange: expected.toString() });
    const [stored] = await db.sql<{ total: string }[]>`
      select sum(b.own_balance)::text as total from ledger_account_balances b join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
      where a.path like 'users/%'`;
    expect(stored.total).toBe(expected.toString());
    expect(tally.output()).toMatch(/"msg":"balance fold","folded":\d+,"lag_ms":\d+/);
  }, 120_000);
});
