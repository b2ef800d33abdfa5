import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { checkLedgerInvariants } from '../src/db/ledgerChecks.js';
import { migrate } from '../src/db/migrate.js';
import { connect, type Sql } from '../src/db/sql.js';
import { fetchToken } from '../test/support/token.js';
import { startTally, stopTally } from '../test/support/tallyProcess.js';
import { gqlCall, postJson } from './support/graphqlPost.js';
import { cpuSeconds, idlePercentSince, machineTimes } from './support/processStats.js';

// `make bench-ledger-balances`: historical balance reads on a spawned server, on one account
// with 1,000,000 lines over three years and one with 10,000 over the same years (the ratio
// shows whether a read's cost grows with history); the cost of a backdated posting under each;
// and a hot account posting with strong vs eventual balance updates, 64 clients, same run.
// Results go to bench/results/ledger-balances.{md,json}.

const BIG_LINES = Number(process.env.BENCH_BIG_LINES ?? 1_000_000);
const SMALL_LINES = 10_000;
const READS = Number(process.env.BENCH_READS ?? 400);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const POOL = 10;
const HISTORY_START = Date.UTC(2023, 0, 1);
const HISTORY_MS = 3 * 365 * 86_400_000;

type Latency = { p50Ms: number; p99Ms: number; maxMs: number };
const round = (value: number) => Math.round(value * 100) / 100;

function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
  return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), maxMs: round(sorted[sorted.length - 1]) };
}

/** The answer, and the server's own time from its `Server-Timing: app;dur=<ms>` header. */
/**
 * `lines` entries spread evenly over the three years, one line on `account` and one on `counter`
 * each, written in bulk (foreign-key triggers off, as for any bulk load), then bucketed by
 * rebuild_balance_history like any data written outside the posting path.
 */
async function seed(
  sql: Sql,
  ledger: { id: string; workspaceId: string },
  account: string,
  counter: string,
  lines: number,
) {
  const step = HISTORY_MS / lines;
  await sql.begin(async (trx) => {
    await trx`set local session_replication_role = replica`;
    await trx`
      insert into ledger_entries (workspace_id, ledger_id, id, ik, posted, request_hash)
      select ${ledger.workspaceId}, ${ledger.id}, 'ent_seed_' || ${account} || '_' || g, 'seed-' || ${account} || '-' || g,
             to_timestamp(${HISTORY_START / 1000} + g * ${step / 1000}::float8), 'seed'
      from generate_series(1, ${lines}) g`;
    await trx`
      insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, posted, created)
      select ${ledger.workspaceId}, ${ledger.id}, 'line_seed_' || ${account} || '_' || g || '_' || p, 'ent_seed_' || ${account} || '_' || g, p,
             case p when 1 then ${account} else ${counter} end, 'USD', 1 + g % 997, to_timestamp(${HISTORY_START / 1000} + g * ${step / 1000}::float8), now()
      from generate_series(1, ${lines}) g cross join (values (1), (2)) as v(p)`;
  });
}

/** A month of the history, among its first `months` months. */
function randomMonth(random: () => number, months = 36): string {
  const index = Math.floor(random() * months);
  return `${2023 + Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

function randomHour(random: () => number): string {
  return new Date(HISTORY_START + random() * HISTORY_MS).toISOString().slice(0, 13);
}

type ReadTimes = { server: Latency; client: Latency };

async function timeReads(
  baseUrl: string,
  token: string,
  path: string,
  field: (random: () => number) => string,
  check: (data: any) => boolean,
): Promise<ReadTimes> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let state = 12345;
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
  const client: number[] = [];
  const server: number[] = [];
  for (let i = 0; i < READS + 20; i++) {
    const query = `{ ledgerAccount(ledgerAccount: { path: "${path}", ledger: { ik: "history" } }) { ${field(random)} } }`;
    const started = performance.now();
    const { text, serverMs } = await postJson(agent, `${baseUrl}/graphql`, token, JSON.stringify({ query }));
    const elapsed = performance.now() - started;
    const body = JSON.parse(text);
    if (!body.data?.ledgerAccount || !check(body.data.ledgerAccount))
      throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
    if (i >= 20) {
      // the first 20 warm the connections
      client.push(elapsed);
      server.push(serverMs);
    }
  }
  agent.destroy();
  return { server: latency(server), client: latency(client) };
}

const POST = `mutation post($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on AddLedgerEntryResult { entry { id } } ... on Error { code message } } }`;

/** Sequential backdated postings to `account` (posted three years back, before every stored line). */
async function timeBackdated(baseUrl: string, token: string, account: string): Promise<Latency> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < 220; i++) {
    const body = JSON.stringify({
      query: POST,
      variables: {
        ik: `backdated-${account}-${i}`,
        entry: {
          ledger: { ik: 'history' },
          posted: new Date(HISTORY_START - 86_400_000 + i * 1000).toISOString(),
          lines: [
            { account: { path: account }, amount: '1' },
            { account: { path: 'equity' }, amount: '1' },
          ],
        },
      },
    });
    const started = performance.now();
    const { text } = await postJson(agent, `${baseUrl}/graphql`, token, body);
    if (!text.includes('"AddLedgerEntryResult"')) throw new Error(`posting failed: ${text.slice(0, 300)}`);
    if (i >= 20) samples.push(performance.now() - started);
  }
  agent.destroy();
  return latency(samples);
}

type HotFigures = {
  entriesPerSecond: number;
  errors: number;
  serverCpuPercent: number;
  machineBusyPercent: number;
} & Latency;

async function hotPosting(baseUrl: string, token: string, pid: number, hot: string): Promise<HotFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const samples: number[] = [];
  let errors = 0;
  let firstError = '';
  const cpuBefore = cpuSeconds(pid);
  const machineBefore = machineTimes();
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 64 }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const body = JSON.stringify({
          query: POST,
          variables: {
            ik: `${hot}-${client}-${n}`,
            entry: {
              ledger: { ik: 'hot' },
              lines: [
                { account: { path: hot }, amount: '1' },
                { account: { path: `l${(client * 31 + n) % 198}` }, amount: '1' },
              ],
            },
          },
        });
        const started = performance.now();
        const { status, text } = await postJson(agent, `${baseUrl}/graphql`, token, body);
        samples.push(performance.now() - started);
        if (status !== 200 || !text.includes('"AddLedgerEntryResult"')) {
          errors++;
          firstError ||= `${status} ${text.slice(0, 300)}`;
        }
      }
    }),
  );
  agent.destroy();
  if (firstError) console.log(`  first error: ${firstError}`);
  return {
    entriesPerSecond: Math.round((samples.length - errors) / SECONDS),
    errors,
    ...latency(samples),
    serverCpuPercent: Math.round(((cpuSeconds(pid) - cpuBefore) / SECONDS) * 100),
    machineBusyPercent: 100 - idlePercentSince(machineBefore),
  };
}

async function main() {
  const postgres = await startEmbeddedPostgres({ dataDir: '', ephemeral: true, fast: false });
  const url = await ensureDatabase(postgres.url, 'tally_bench');
  const sql = connect(url, { max: POOL });
  await migrate(sql);
  const tally = await startTally(
    {
      DATABASE_URL: url,
      DATABASE_POOL_MAX: String(POOL),
      BOOTSTRAP_CLIENT_ID: 'bench',
      BOOTSTRAP_CLIENT_SECRET: 'bench-secret',
    },
    { startOutputOnly: true },
  );
  try {
    const token = await fetchToken(tally.baseUrl, 'bench', 'bench-secret');
    await gqlCall(
      tally.baseUrl,
      token,
      'mutation { createLedger(ik: "history", ledger: { name: "History", balanceUTCOffset: "+05:30" }) { __typename } }',
    );
    await gqlCall(
      tally.baseUrl,
      token,
      `mutation { createLedgerAccounts(ledger: { ik: "history" }, ledgerAccounts: [
      { ik: "big", name: "Big", type: asset, consistencyConfig: { ownBalanceUpdates: strong } },
      { ik: "small", name: "Small", type: asset, consistencyConfig: { ownBalanceUpdates: strong } },
      { ik: "equity", name: "Equity", type: liability, consistencyConfig: { ownBalanceUpdates: strong } }]) { __typename } }`,
    );
    const [ledger] = await sql<
      { id: string; workspaceId: string }[]
    >`select id, workspace_id as "workspaceId" from ledgers where ik = 'history'`;
    const ids = new Map(
      (
        await sql<{ id: string; path: string }[]>`select id, path from ledger_accounts where ledger_id = ${ledger.id}`
      ).map((row) => [row.path, row.id]),
    );

    let started = performance.now();
    await seed(sql, ledger, ids.get('big')!, ids.get('equity')!, BIG_LINES);
    await seed(sql, ledger, ids.get('small')!, ids.get('equity')!, SMALL_LINES);
    await sql`select rebuild_balance_history(${ledger.id})`;
    await sql`vacuum analyze`;
    const seedSeconds = Math.round((performance.now() - started) / 1000);
    console.log(`seeded ${BIG_LINES} + ${SMALL_LINES} lines in ${seedSeconds} s`);

    const nonEmpty = (data: Record<string, unknown>) => Object.values(data).every((value) => value !== null);
    const reads = {
      balanceAt: (random: () => number) => `ownBalance(at: "${randomHour(random)}")`,
      changeOverMonth: (random: () => number) => `ownBalanceChange(period: "${randomMonth(random)}")`,
      dailySeries365: (random: () => number) =>
        `ownBalancesDuring(startTime: "${randomMonth(random, 24)}", duration: 365, granularity: daily) { nodes { amount { amount } } }`,
    };
    const results: Record<string, { big: ReadTimes; small: ReadTimes; ratio: number }> = {};
    for (const [name, field] of Object.entries(reads)) {
      const check = name === 'dailySeries365' ? (data: any) => data.ownBalancesDuring.nodes.length === 365 : nonEmpty;
      const big = await timeReads(tally.baseUrl, token, 'big', field, check);
      const small = await timeReads(tally.baseUrl, token, 'small', field, check);
      results[name] = { big, small, ratio: round(big.server.p99Ms / small.server.p99Ms) };
      console.log(name, results[name]);
    }
    const backdatedBig = await timeBackdated(tally.baseUrl, token, 'big');
    const backdatedSmall = await timeBackdated(tally.baseUrl, token, 'small');
    console.log('backdated', backdatedBig, backdatedSmall);

    // Hot account: the same 198 strong counter accounts (201 would pass the 200-account limit
    // of one call); only the hot account's updates differ.
    const counters = Array.from(
      { length: 198 },
      (_, i) => `{ ik: "l${i}", name: "n", type: liability, consistencyConfig: { ownBalanceUpdates: strong } }`,
    ).join(',');
    await gqlCall(tally.baseUrl, token, `mutation { createLedger(ik: "hot", ledger: { name: "Hot" }) { __typename } }`);
    await gqlCall(
      tally.baseUrl,
      token,
      `mutation { createLedgerAccounts(ledger: { ik: "hot" }, ledgerAccounts: [
      { ik: "hot-strong", name: "Hot, strong", type: asset, consistencyConfig: { ownBalanceUpdates: strong, totalBalanceUpdates: strong } },
      { ik: "hot-eventual", name: "Hot, eventual", type: asset, consistencyConfig: { ownBalanceUpdates: eventual, totalBalanceUpdates: eventual } },
      ${counters}]) { __typename } }`,
    );
    const strong = await hotPosting(tally.baseUrl, token, tally.child.pid!, 'hot-strong');
    console.log('hot strong', strong);
    const eventual = await hotPosting(tally.baseUrl, token, tally.child.pid!, 'hot-eventual');
    console.log('hot eventual', eventual);
    started = performance.now();
    while ((await sql`select 1 from ledger_balance_queue limit 1`).length > 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const drainMs = Math.round(performance.now() - started);
    const violations = await checkLedgerInvariants(sql);

    write({
      date: new Date().toISOString(),
      cpus: os.cpus().length,
      bigLines: BIG_LINES,
      smallLines: SMALL_LINES,
      reads: READS,
      seconds: SECONDS,
      seedSeconds,
      results,
      backdated: { big: backdatedBig, small: backdatedSmall, ratio: round(backdatedBig.p50Ms / backdatedSmall.p50Ms) },
      hot: {
        strong,
        eventual,
        ratio: round(eventual.entriesPerSecond / strong.entriesPerSecond),
        foldDrainMs: drainMs,
      },
      invariantViolations: violations.length,
    });
  } finally {
    await stopTally(tally);
    await sql.end();
    await postgres.stop();
  }
}

type Report = {
  date: string;
  cpus: number;
  bigLines: number;
  smallLines: number;
  reads: number;
  seconds: number;
  seedSeconds: number;
  results: Record<string, { big: ReadTimes; small: ReadTimes; ratio: number }>;
  backdated: { big: Latency; small: Latency; ratio: number };
  hot: { strong: HotFigures; eventual: HotFigures; ratio: number; foldDrainMs: number };
  invariantViolations: number;
};

function write(report: Report) {
  const dir = path.resolve(import.meta.dirname, 'results');
  fs.writeFileSync(path.join(dir, 'ledger-balances.json'), `${JSON.stringify(report, null, 2)}\n`);
  const targets: Record<string, number> = { balanceAt: 10, changeOverMonth: 10, dailySeries365: 30 };
  const lines = [
    '# Ledger balance history benchmark',
    '',
    `\`make bench-ledger-balances\`, ${report.date.slice(0, 10)}, ${report.cpus} cores shared by the client, the server and PostgreSQL. ` +
      `Reads: ${report.reads} sequential requests each (each a new document: the moment or month is random), one client; server time is the server's own ` +
      '`Server-Timing` (from the request arriving to the answer, GraphQL included), client time adds HTTP on loopback. ' +
      `One account holds ${report.bigLines.toLocaleString('en')} lines, another ${report.smallLines.toLocaleString('en')}, both over 2023-2025 on a +05:30 ledger.`,
    '',
    '| Read | target p99 ms (server) | 1M lines: server p50 / p99 | 10k lines: server p50 / p99 | server p99 ratio 1M/10k | 1M lines: client p50 / p99 |',
    '|---|---|---|---|---|---|',
    ...Object.entries(report.results).map(
      ([name, r]) =>
        `| ${name} | ${targets[name]} | ${r.big.server.p50Ms} / ${r.big.server.p99Ms} | ${r.small.server.p50Ms} / ${r.small.server.p99Ms} | ${r.ratio} | ${r.big.client.p50Ms} / ${r.big.client.p99Ms} |`,
    ),
    '',
    `Backdated posting (posted before every stored line), sequential, p50/p99 ms: ${report.backdated.big.p50Ms}/${report.backdated.big.p99Ms} under 1M later lines, ` +
      `${report.backdated.small.p50Ms}/${report.backdated.small.p99Ms} under 10k (p50 ratio ${report.backdated.ratio}).`,
    '',
    `Hot account, 64 clients, ${report.seconds} s each:`,
    '',
    '| Hot account updates | entries/s | p50 ms | p99 ms | errors | server CPU % (of one core) | machine busy % (both cores) |',
    '|---|---|---|---|---|---|---|',
    ...(['strong', 'eventual'] as const).map((mode) => {
      const f = report.hot[mode];
      return `| ${mode === 'strong' ? 'strong' : 'eventual (folded in the background)'} | ${f.entriesPerSecond} | ${f.p50Ms} | ${f.p99Ms} | ${f.errors} | ${f.serverCpuPercent} | ${f.machineBusyPercent} |`;
    }),
    '',
    `- Eventual reaches ${report.hot.ratio}× the strong figure (target: at least 2×).`,
    `- The fold's queue was empty ${report.hot.foldDrainMs} ms after the eventual run ended; invariant violations afterwards (balances and history vs lines): ${report.invariantViolations}.`,
    '',
  ];
  fs.writeFileSync(path.join(dir, 'ledger-balances.md'), lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
