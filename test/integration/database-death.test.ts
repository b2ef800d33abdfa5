import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { connect } from '../../src/db/sql.js';
import { createTestDatabase } from '../support/database.js';
import { gql } from '../support/graphql.js';
import { outageScope, until } from '../support/outages.js';
import { freePort } from '../support/ports.js';
import { spawnTally, startTally, type TallyProcess } from '../support/tallyProcess.js';
import { fetchToken } from '../support/token.js';

// PostgreSQL dying while transactions are in flight. Unpatched postgres.js 3.4.9 then writes the
// transaction's ROLLBACK to a socket it has already dropped, from a setImmediate no caller can
// catch, and the server process dies (porsager/postgres#1208). patches/postgres+3.4.9.patch
// guards it; these tests fail (the server exits) without that patch.

const { running, databases, temporaryFolder, tallyOnOwnPostgres } = outageScope('tally-death-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ready = async (baseUrl: string) =>
  (await fetch(`${baseUrl}/readyz`, { headers: { connection: 'close' } })).status === 200;
const alive = (tally: TallyProcess) => tally.child.exitCode === null && tally.child.signalCode === null;

const LINES = '[{ account: { path: "cash" }, amount: "1" }, { account: { path: "deposits" }, amount: "1" }]';
const POST_BATCH = `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) {
  __typename ... on Error { code } ... on InternalError { retryable } } }`;
const POST_ONE = `mutation($ik: SafeString!) { addLedgerEntry(ik: $ik, entry: { ledger: { ik: "main" }, lines: ${LINES} }) {
  __typename ... on Error { code } ... on InternalError { retryable } } }`;

// Strong balances are updated under their row lock in the posting's transaction.
const STRONG = '{ ownBalanceUpdates: strong, totalBalanceUpdates: strong }';

async function seedLedger(baseUrl: string, token: string) {
  await gql(baseUrl, token, 'mutation { createLedger(ik: "main", ledger: { name: "Main" }) { __typename } }');
  const accounts = await gql(
    baseUrl,
    token,
    `mutation { createLedgerAccounts(ledger: { ik: "main" }, ledgerAccounts: [
    { ik: "cash", name: "Cash", type: asset, consistencyConfig: ${STRONG} },
    { ik: "deposits", name: "Deposits", type: liability, consistencyConfig: ${STRONG} }]) { __typename } }`,
  );
  expect(accounts.body.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
}

type Tally = { baseUrl: string; token: string };
type Tallies = Record<string, number>;

/** One write of a client: a batch, a single entry or a billing sync, in turn; its outcome's name. */
async function writeOnce({ baseUrl, token }: Tally, client: number, n: number): Promise<string> {
  const ik = `c${client}-${n}`;
  try {
    if (n % 3 === 0) {
      const entries = [0, 1].map((i) => ({
        ik: `${ik}-${i}`,
        entry: {
          ledger: { ik: 'main' },
          lines: [
            { account: { path: 'cash' }, amount: '1' },
            { account: { path: 'deposits' }, amount: '1' },
          ],
        },
      }));
      const { body } = await gql(baseUrl, token, POST_BATCH, { entries });
      return outcomeOf(body.data?.addLedgerEntries ?? { __typename: `errors:${body.errors?.[0]?.extensions?.code}` });
    }
    if (n % 3 === 1) {
      const { body } = await gql(baseUrl, token, POST_ONE, { ik });
      return outcomeOf(body.data?.addLedgerEntry ?? { __typename: `errors:${body.errors?.[0]?.extensions?.code}` });
    }
    const response = await fetch(`${baseUrl}/billing/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        external_id: ik,
        account: { external_id: 'bank' },
        amount: '100',
        currency: 'USD',
        posted: '2026-11-25T10:00:00Z',
        allocations: [],
      }),
    });
    const body = (await response.json()) as { code?: string; retryable?: boolean };
    return response.status < 300 ? 'written' : `${response.status} ${body.code}${body.retryable ? ' retryable' : ''}`;
  } catch (error) {
    return `transport ${(error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message}`;
  }
}

function outcomeOf(answer: { __typename: string; code?: string; retryable?: boolean }): string {
  if (answer.__typename.endsWith('Result')) return 'written';
  return `${answer.__typename} ${answer.code ?? ''}${answer.retryable ? ' retryable' : ''}`.trim();
}

/** Longer than any answer may take (statement budget 10 s, a connect 5 s). */
const WRITE_PATIENCE_MS = 20_000;

/** Clients writing until `stop()`; `outcomes` counts every answer by kind. */
function startLoad(tally: Tally, clients: number) {
  const outcomes: Tallies = {};
  let stopping = false;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let n = 0; !stopping; n++) {
      // A write that never answers is an outcome too (and stop() is never held by one).
      const outcome = await Promise.race([
        writeOnce(tally, client, n),
        sleep(WRITE_PATIENCE_MS).then(() => 'no answer'),
      ]);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome !== 'written') await sleep(20);
    }
  });
  return {
    outcomes,
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

/** Answers a client may meet while the database is away: a written outcome, or a typed retryable refusal. */
function unexpected(outcomes: Tallies): string[] {
  const acceptable =
    /^(written|InternalError service_unavailable retryable|errors:service_unavailable|503 service_unavailable retryable|transport (ECONNRESET|UND_ERR_SOCKET))$/;
  return Object.keys(outcomes).filter((outcome) => !acceptable.test(outcome));
}

async function externalSetup() {
  const setup = await tallyOnOwnPostgres();
  await seedLedger(setup.tally.baseUrl, setup.token);
  return setup;
}

describe('PostgreSQL dying under load', () => {
  it('a transaction whose backend is terminated answers a retryable 503, and the server goes on', async () => {
    const { url, tally, token } = await externalSetup();
    const observer = postgres(url, { max: 2, onnotice: () => {} });
    let held: postgres.ReservedSql | undefined;
    try {
      // Hold the balance rows so that a batch waits inside its transaction, then kill its backend.
      const posted = await gql(tally.baseUrl, token, POST_ONE, { ik: 'warm' });
      expect(posted.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
      held = await observer.reserve();
      await held`begin`;
      await held`select 1 from ledger_account_balances for update`;
      const pending = gql(tally.baseUrl, token, POST_BATCH, {
        entries: [0, 1].map((i) => ({
          ik: `blocked-${i}`,
          entry: {
            ledger: { ik: 'main' },
            lines: [
              { account: { path: 'cash' }, amount: '1' },
              { account: { path: 'deposits' }, amount: '1' },
            ],
          },
        })),
      });
      let waiting: { pid: number }[] = [];
      await until(
        async () => {
          waiting =
            await observer`select pid from pg_stat_activity where application_name = 'tally' and wait_event_type = 'Lock'`;
          return waiting.length > 0;
        },
        'the batch to wait for the held rows',
        10_000,
      );
      await observer`select pg_terminate_backend(pid) from pg_stat_activity where pid in ${observer(waiting.map((row) => row.pid))}`;

      const answer = await pending;
      expect(answer.body.data.addLedgerEntries).toEqual({
        __typename: 'InternalError',
        code: 'service_unavailable',
        retryable: true,
      });
      await held`rollback`;
      await sleep(200);
      expect(alive(tally)).toBe(true);
      const after = await gql(tally.baseUrl, token, POST_ONE, { ik: 'after' });
      expect(after.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
    } finally {
      held?.release();
      await observer.end();
    }
  }, 60_000);

  it('PostgreSQL stopped immediately under load: the server answers typed 503s, then serves again without a restart', async () => {
    const { database, tally, token, start } = await externalSetup();
    const load = startLoad({ baseUrl: tally.baseUrl, token }, 12);
    await until(async () => (load.outcomes.written ?? 0) > 60, 'the load to write', 20_000);

    // Immediate shutdown: the postmaster tells every backend to quit at once, mid-transaction.
    const postmaster = Number(fs.readFileSync(path.join(database.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGQUIT');
    await database.stop();
    await sleep(1500);
    expect(alive(tally)).toBe(true);
    expect(await ready(tally.baseUrl)).toBe(false);

    await start();
    await until(() => ready(tally.baseUrl), 'readyz after PostgreSQL returned');
    const writtenBefore = load.outcomes.written ?? 0;
    await until(
      async () => (load.outcomes.written ?? 0) > writtenBefore + 30,
      'writes after PostgreSQL returned',
      20_000,
    );
    await load.stop();

    expect(alive(tally)).toBe(true);
    expect(load.outcomes['InternalError service_unavailable retryable'] ?? 0).toBeGreaterThan(0);
    expect(unexpected(load.outcomes), JSON.stringify(load.outcomes)).toEqual([]);
    expect(tally.output()).not.toContain('TypeError');
  }, 120_000);

  it('the embedded PostgreSQL killed under load is restarted by Tally, which keeps serving', async () => {
    const tally = await startTally({
      DATABASE_URL: '',
      TALLY_DATA_DIR: temporaryFolder(),
      BOOTSTRAP_CLIENT_ID: 'boot',
      BOOTSTRAP_CLIENT_SECRET: 'boot-secret',
    });
    running.push(tally);
    const token = await fetchToken(tally.baseUrl, 'boot', 'boot-secret');
    await seedLedger(tally.baseUrl, token);
    const load = startLoad({ baseUrl: tally.baseUrl, token }, 12);
    await until(async () => (load.outcomes.written ?? 0) > 60, 'the load to write', 20_000);

    // Every PostgreSQL process at once, as an OOM killer or a crashed host would.
    const dataDir = /\(data: ([^)]+)\)/.exec(tally.output())![1];
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const backends = fs
      .readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    for (const pid of [postmaster, ...backends]) process.kill(pid, 'SIGKILL');

    await until(async () => tally.output().includes('embedded PostgreSQL restarted'), 'the embedded restart');
    await until(() => ready(tally.baseUrl), 'readyz after the restart');
    const writtenBefore = load.outcomes.written ?? 0;
    await until(async () => (load.outcomes.written ?? 0) > writtenBefore + 30, 'writes after the restart', 20_000);
    await load.stop();

    expect(alive(tally)).toBe(true);
    expect(unexpected(load.outcomes), JSON.stringify(load.outcomes)).toEqual([]);
    expect(tally.output()).not.toContain('TypeError');
  }, 120_000);

  it('a server started before its database answers 503 while it waits, then serves', async () => {
    const dataDir = temporaryFolder();
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir, ephemeral: false, fast: true, port });
    const url = await ensureDatabase(first.url, 'tally');
    await first.stop();

    const httpPort = await freePort();
    const child = spawnTally(
      { DATABASE_URL: url, BOOTSTRAP_CLIENT_ID: 'boot', BOOTSTRAP_CLIENT_SECRET: 'boot-secret' },
      httpPort,
    );
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    running.push({ child, baseUrl: `http://127.0.0.1:${httpPort}`, port: httpPort, output: () => output });
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    await until(
      async () => output.includes('the database is not reachable yet'),
      'the server to wait for its database',
    );
    const waiting = await fetch(`${baseUrl}/readyz`);
    expect(waiting.status).toBe(503);
    expect(await waiting.json()).toMatchObject({ code: 'service_unavailable', retryable: true });

    databases.push(await startEmbeddedPostgres({ dataDir, ephemeral: false, fast: true, port }));
    await until(() => ready(baseUrl), 'readyz once the database is up');
    expect(await fetchToken(baseUrl, 'boot', 'boot-secret')).toMatch(/^tly1\./);
    expect(child.exitCode).toBe(null);
  }, 90_000);
});

describe('the patched driver', () => {
  it('survives a connection that fails while it fetches its array types (a rejection nothing awaits)', async () => {
    const database = await createTestDatabase();
    const target = new URL(database.url);
    const unhandled: unknown[] = [];
    const collect = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', collect);
    // A proxy that drops everything, and stops listening, as the driver asks for its array types:
    // the connection closes and the reconnect is refused, as when PostgreSQL dies at that moment.
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => {});
      }
      client.on('data', (chunk) => {
        if (!chunk.includes('typcategory')) return void upstream.write(chunk);
        proxy.close();
        for (const socket of sockets) socket.destroy();
      });
      upstream.on('data', (chunk) => client.write(chunk));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const viaProxy = new URL(database.url);
    viaProxy.port = String((proxy.address() as net.AddressInfo).port);
    const sql = connect(viaProxy.toString(), { max: 1, connectTimeoutSeconds: 2 });
    try {
      await expect(sql`select 1`).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await sleep(500);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', collect);
      await sql.end({ timeout: 1 });
      await database.drop();
    }
  });
});
