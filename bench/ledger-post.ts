import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { postLedgerEntries, postLedgerEntry, type EntryPosting } from '../src/db/ledgerEntries.js';
import { migrate } from '../src/db/migrate.js';
import { connect, type Sql } from '../src/db/sql.js';
import { newId } from '../src/core/ids.js';
import { fetchToken } from '../test/support/token.js';
import { startTally, stopTally } from '../test/support/tallyProcess.js';
import { gqlCall, postJson } from './support/graphqlPost.js';
import { cpuSeconds, idlePercentSince, machineTimes, rssMiB } from './support/processStats.js';

// `make bench-ledger`: addLedgerEntry over HTTP with 2-line runtime entries against spawned
// servers on a durable embedded PostgreSQL (fsync and synchronous_commit on), in two shapes:
// (a) 10,000 accounts and 50 clients, (b) one hot account and 64 clients. Each shape runs on a
// server with group commit and on one without (groups of one), then the posting function driven
// directly by postgres.js, one entry per commit, at the server's pool size.
// Results go to bench/results/ledger-post.{md,json}.

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const POOL = 10;
const ACCOUNTS = 10_000;
const SEED_ENTRIES = 20_000;
// Balances updated in the posting's transaction, the path this benchmark has always measured;
// bench/ledger-balances.ts compares it with eventual updates.
const STRONG = '{ ownBalanceUpdates: strong, totalBalanceUpdates: strong }';

type Figures = {
  entriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
  serverRssMiB?: number;
  serverCpuPercent?: number;
  /** Share of the machine's CPU time that was idle during the run (both cores). */
  machineIdlePercent?: number;
  /** Where Tally's database backends were, sampled every 20 ms: the top states and wait events. */
  backendWaits?: string;
  /** WAL written per entry (pg_walinspect: every record between the phase's first and last LSN, the fold's included). */
  walBytesPerEntry?: number;
  walRecordsPerEntry?: number;
  /** WAL records per entry by resource manager, the five most frequent. */
  walRecordsByKind?: string;
  /** Top-level statements per entry (pg_stat_statements), the fold's and the benchmark's own excluded: round trips. */
  statementsPerEntry?: number;
};
type Scenario = { name: string; clients: number; ledger: string; pick: (random: () => number) => [string, string] };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const round = (value: number) => Math.round(value * 10) / 10;

function summarize(latencies: number[], errors: number, seconds: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    entriesPerSecond: Math.round((latencies.length - errors) / seconds),
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    errors,
    requests: latencies.length,
  };
}

/** Samples what Tally's backends are doing until stopped: busy, waiting on what, or idle in a transaction. */
function sampleBackends(sql: Sql): () => Promise<string> {
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await sql<{ what: string; n: number }[]>`
        select coalesce(wait_event_type || ':' || wait_event, state) as what, count(*)::int as n from pg_stat_activity
        where application_name = 'tally' and backend_type = 'client backend' and state <> 'idle'
          and pid <> pg_backend_pid() group by 1`;
      samples++;
      for (const row of rows) counts.set(row.what, (counts.get(row.what) ?? 0) + row.n);
      if (process.env.BENCH_SLOW) {
        const slow =
          await sql`select pid, backend_type, state, wait_event_type, wait_event, now() - query_start as age, pg_blocking_pids(pid) as blockers, left(query, 80) as q
          from pg_stat_activity where state <> 'idle' and now() - query_start > interval '1 second' and pid <> pg_backend_pid()`;
        for (const row of slow) console.log('SLOW', JSON.stringify(row));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([what, n]) => `${what} ${(n / samples).toFixed(1)}`)
      .join(', ');
  };
}

type DatabaseFigures = Pick<
  Figures,
  'walBytesPerEntry' | 'walRecordsPerEntry' | 'walRecordsByKind' | 'statementsPerEntry'
>;

/** Starts counting WAL (pg_walinspect, between two LSNs) and statements; the function returned answers them per entry. */
async function databaseCounters(sql: Sql): Promise<(entries: number) => Promise<DatabaseFigures>> {
  await sql`select pg_stat_statements_reset()`;
  const [{ start }] = await sql<{ start: string }[]>`select pg_current_wal_insert_lsn()::text as start`;
  return async (entries) => {
    const [{ end, bytes }] = await sql<{ end: string; bytes: string }[]>`
      select pg_current_wal_insert_lsn()::text as end, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${start}::pg_lsn)::text as bytes`;
    await sql`select pg_switch_wal()`;
    // pg_walinspect reads flushed WAL only; the switch above flushes everything up to end.
    const kinds = await sql<{ kind: string; records: string }[]>`
      select "resource_manager/record_type" as kind, sum(count)::text as records
      from pg_get_wal_stats(${start}::pg_lsn, ${end}::pg_lsn) group by 1 order by sum(count) desc`.catch(() => []);
    const [statements] = await sql<{ calls: string }[]>`
      select coalesce(sum(calls), 0)::text as calls from pg_stat_statements
      where toplevel and query not like '%fold_ledger_balance_queue%' and query not like '%pg_stat%'
        and query not like '%pg_get_wal_stats%' and query not like '%pg_current_wal%'
        and dbid = (select oid from pg_database where datname = current_database())`;
    if (process.env.BENCH_STATEMENTS) {
      const top = await sql<{ calls: string; ms: string; query: string }[]>`
        select calls::text, round(total_exec_time::numeric, 1)::text as ms,
               left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 140) as query
        from pg_stat_statements order by total_exec_time desc limit 12`;
      for (const row of top) console.log(`    ${row.calls} calls, ${row.ms} ms: ${row.query}`);
    }
    const per = (value: number) => (entries > 0 ? Math.round((value / entries) * 10) / 10 : 0);
    return {
      walBytesPerEntry: Math.round(per(Number(bytes))),
      walRecordsPerEntry: per(kinds.reduce((sum, kind) => sum + Number(kind.records), 0)),
      walRecordsByKind: kinds
        .slice(0, 5)
        .map((kind) => `${kind.kind} ${per(Number(kind.records))}`)
        .join(', '),
      statementsPerEntry: per(Number(statements.calls)),
    };
  };
}

const POST = `mutation post($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on AddLedgerEntryResult { entry { id } } ... on Error { code message } } }`;

async function overHttp(sql: Sql, baseUrl: string, token: string, pid: number, scenario: Scenario): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: scenario.clients });
  const latencies: number[] = [];
  let errors = 0;
  let firstError = '';
  const rss: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const sampler = setInterval(() => rss.push(rssMiB(pid)), 500);
  const counted = await databaseCounters(sql);
  const cpuBefore = cpuSeconds(pid);
  const machineBefore = machineTimes();
  const stopSampling = sampleBackends(sql);
  await Promise.all(
    Array.from({ length: scenario.clients }, async (_, client) => {
      let state = client * 7919 + 1;
      const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
      for (let n = 0; performance.now() < deadline; n++) {
        const [from, to] = scenario.pick(random);
        const body = JSON.stringify({
          query: POST,
          variables: {
            // The run's own iks: the same iks on the next server would replay these entries, not post.
            ik: `${scenario.name}-${new URL(baseUrl).port}-${client}-${n}`,
            entry: {
              ledger: { ik: scenario.ledger },
              lines: [
                { account: { path: from }, amount: '1' },
                { account: { path: to }, amount: '1' },
              ],
            },
          },
        });
        const started = performance.now();
        const { status, text } = await postJson(agent, `${baseUrl}/graphql`, token, body);
        latencies.push(performance.now() - started);
        if (status !== 200 || !text.includes('"AddLedgerEntryResult"')) {
          errors++;
          firstError ||= `${status} ${text.slice(0, 200)}`;
        }
      }
    }),
  );
  clearInterval(sampler);
  const backendWaits = await stopSampling();
  const machineIdlePercent = idlePercentSince(machineBefore);
  agent.destroy();
  if (firstError) console.log(`  first error: ${firstError}`);
  const serverCpuPercent = Math.round(((cpuSeconds(pid) - cpuBefore) / SECONDS) * 100);
  return {
    ...summarize(latencies, errors, SECONDS),
    ...(await counted(latencies.length - errors)),
    serverRssMiB: Math.max(...rss),
    serverCpuPercent,
    machineIdlePercent,
    backendWaits,
  };
}

/** The same posting function the server calls, driven directly: what PostgreSQL allows at this pool size. */
async function direct(
  sql: Sql,
  workspaceId: string,
  ledgerId: string,
  ids: Map<string, string>,
  scenario: Scenario,
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const counted = await databaseCounters(sql);
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: scenario.clients }, async (_, client) => {
      let state = client * 104729 + 3;
      const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
      for (let n = 0; performance.now() < deadline; n++) {
        const [from, to] = scenario.pick(random);
        const started = performance.now();
        try {
          await postLedgerEntry(
            sql,
            transfer({ workspaceId, id: ledgerId }, ids, [from, to], `direct-${scenario.name}-${client}-${n}`),
          );
        } catch {
          errors++;
        }
        latencies.push(performance.now() - started);
      }
    }),
  );
  return { ...summarize(latencies, errors, SECONDS), ...(await counted(latencies.length - errors)) };
}

/** A 2-line transfer of 1 USD between two accounts named by path, as the posting functions take it. */
function transfer(
  ledger: { workspaceId: string; id: string },
  ids: Map<string, string>,
  [from, to]: [string, string],
  ik: string,
): EntryPosting {
  const line = (path: string) => ({
    id: newId('line'),
    accountId: ids.get(path)!,
    currency: 'USD',
    amount: '1',
    key: null,
    description: null,
    tags: [],
  });
  return {
    workspaceId: ledger.workspaceId,
    ledgerId: ledger.id,
    entryId: newId('ent'),
    ik,
    requestHash: 'bench',
    type: null,
    typeVersion: null,
    parameters: null,
    posted: new Date().toISOString(),
    description: null,
    tags: [],
    groups: [],
    conditions: [],
    lines: [line(from), line(to)],
  };
}

async function accountIds(sql: Sql, ledgerId: string): Promise<Map<string, string>> {
  const rows = await sql<
    { id: string; path: string }[]
  >`select id, path from ledger_accounts where ledger_id = ${ledgerId}`;
  return new Map(rows.map((row) => [row.path, row.id]));
}

async function main() {
  const postgres = await startEmbeddedPostgres({
    dataDir: '',
    ephemeral: true,
    fast: false,
    // Statements per entry come from pg_stat_statements (BENCH_STATEMENTS=1 lists the costliest, nested ones too).
    settings: {
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': process.env.BENCH_STATEMENTS ? 'all' : 'top',
    },
  });
  const url = await ensureDatabase(postgres.url, 'tally_bench');
  const sql = connect(url, { max: POOL });
  await migrate(sql);
  await sql`create extension if not exists pg_stat_statements`;
  await sql`create extension if not exists pg_walinspect`;
  const settings = await sql`select current_setting('fsync') as fsync, current_setting('synchronous_commit') as sync`;
  const serverEnv = {
    DATABASE_URL: url,
    DATABASE_POOL_MAX: String(POOL),
    BOOTSTRAP_CLIENT_ID: 'bench',
    BOOTSTRAP_CLIENT_SECRET: 'bench-secret',
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
  };
  const tally = await startTally({
    ...serverEnv,
    ...(process.env.BENCH_GROUP_MAX_ENTRIES ? { POSTING_GROUP_MAX_ENTRIES: process.env.BENCH_GROUP_MAX_ENTRIES } : {}),
  });
  // The same server with group commit off, measured in the same run for the ratio.
  const ungrouped = await startTally({ ...serverEnv, POSTING_GROUP_MAX_ENTRIES: '1' });
  try {
    const token = await fetchToken(tally.baseUrl, 'bench', 'bench-secret');
    for (const ik of ['spread', 'hot'])
      await gqlCall(
        tally.baseUrl,
        token,
        `mutation { createLedger(ik: "${ik}", ledger: { name: "${ik}" }) { __typename } }`,
      );
    // Half assets, half liabilities: every asset-to-liability pair balances with +1 and +1.
    for (let batch = 0; batch < ACCOUNTS / 200; batch++) {
      const type = batch % 2 === 0 ? 'asset' : 'liability';
      const accounts = Array.from(
        { length: 200 },
        (_, i) => `{ ik: "${type[0]}${batch * 200 + i}", name: "n", type: ${type}, consistencyConfig: ${STRONG} }`,
      ).join(',');
      await gqlCall(
        tally.baseUrl,
        token,
        `mutation { createLedgerAccounts(ledger: { ik: "spread" }, ledgerAccounts: [${accounts}]) { __typename } }`,
      );
    }
    const others = Array.from(
      { length: 199 },
      (_, i) => `{ ik: "l${i}", name: "n", type: liability, consistencyConfig: ${STRONG} }`,
    ).join(',');
    await gqlCall(
      tally.baseUrl,
      token,
      `mutation { createLedgerAccounts(ledger: { ik: "hot" }, ledgerAccounts: [{ ik: "hot", name: "Hot", type: asset, consistencyConfig: ${STRONG} }, ${others}]) { __typename } }`,
    );

    const assets = Array.from({ length: ACCOUNTS / 2 }, (_, i) => i).map(
      (i) => `a${Math.floor(i / 200) * 400 + (i % 200)}`,
    );
    const liabilities = assets.map((path) => `l${Number(path.slice(1)) + 200}`);
    const scenarios: Scenario[] = [
      {
        name: 'spread',
        clients: 50,
        ledger: 'spread',
        pick: (random) => [
          assets[Math.floor(random() * assets.length)],
          liabilities[Math.floor(random() * liabilities.length)],
        ],
      },
      { name: 'hot', clients: 64, ledger: 'hot', pick: (random) => ['hot', `l${Math.floor(random() * 199)}`] },
    ];
    // A steady state: ledgers that already hold entries, with statistics that say so (autovacuum
    // analyzes a table within a minute of its first rows). Planned on empty tables, the foreign
    // key checks of lines would scan the entries instead of probing their primary key.
    for (const scenario of scenarios) {
      const [ledger] = await sql<
        { id: string; workspaceId: string }[]
      >`select id, workspace_id as "workspaceId" from ledgers where ik = ${scenario.ledger}`;
      const ids = await accountIds(sql, ledger.id);
      let state = 17;
      const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
      for (let group = 0; group < SEED_ENTRIES / 100; group++) {
        await postLedgerEntries(
          sql,
          Array.from({ length: 100 }, () => transfer(ledger, ids, scenario.pick(random), `seed-${newId('ent')}`)),
        );
      }
    }
    await sql`analyze`;
    const results: Record<string, { http: Figures; httpUngrouped: Figures; direct: Figures; ratio: number }> = {};
    for (const scenario of scenarios) {
      const [ledger] = await sql<
        { id: string; workspaceId: string }[]
      >`select id, workspace_id as "workspaceId" from ledgers where ik = ${scenario.ledger}`;
      const ids = await accountIds(sql, ledger.id);
      console.log(`${scenario.name}: ${scenario.clients} clients, ${SECONDS} s each`);
      const viaHttp = await overHttp(sql, tally.baseUrl, token, tally.child.pid!, scenario);
      console.log('  http  ', viaHttp);
      const viaHttpUngrouped = await overHttp(
        sql,
        ungrouped.baseUrl,
        await fetchToken(ungrouped.baseUrl, 'bench', 'bench-secret'),
        ungrouped.child.pid!,
        scenario,
      );
      console.log('  http, ungrouped', viaHttpUngrouped);
      const viaSql = await direct(sql, ledger.workspaceId, ledger.id, ids, scenario);
      console.log('  direct', viaSql);
      results[scenario.name] = {
        http: viaHttp,
        httpUngrouped: viaHttpUngrouped,
        direct: viaSql,
        ratio: Math.round((viaHttp.entriesPerSecond / viaSql.entriesPerSecond) * 100) / 100,
      };
    }
    const [check] = await sql<{ unbalanced: string }[]>`
      select count(*)::text as unbalanced from ledger_account_balances b
      where own_balance <> (select coalesce(sum(amount), 0) from ledger_lines l where l.workspace_id = b.workspace_id and l.account_id = b.account_id and l.currency = b.currency)`;
    write({
      seconds: SECONDS,
      pool: POOL,
      fsync: settings[0].fsync,
      synchronousCommit: settings[0].sync,
      cpus: (await import('node:os')).cpus().length,
      results,
      balancesNotEqualToLines: Number(check.unbalanced),
    });
  } finally {
    await stopTally(tally);
    await stopTally(ungrouped);
    await sql.end();
    await postgres.stop();
  }
}

function write(report: {
  seconds: number;
  pool: number;
  fsync: string;
  synchronousCommit: string;
  cpus: number;
  results: Record<string, { http: Figures; httpUngrouped: Figures; direct: Figures; ratio: number }>;
  balancesNotEqualToLines: number;
}) {
  const dir = path.resolve(import.meta.dirname, 'results');
  fs.writeFileSync(
    path.join(dir, 'ledger-post.json'),
    `${JSON.stringify({ date: new Date().toISOString(), ...report }, null, 2)}\n`,
  );
  const row = (name: string, f: Figures) =>
    `| ${name} | ${f.entriesPerSecond} | ${f.p50Ms} | ${f.p99Ms} | ${f.errors} | ${f.statementsPerEntry ?? '–'} | ${f.walRecordsPerEntry ?? '–'} | ${f.walBytesPerEntry ?? '–'} | ${f.serverRssMiB ?? '–'} | ${f.serverCpuPercent === undefined ? '–' : ((f.serverCpuPercent * 10) / f.entriesPerSecond).toFixed(2)} | ${f.machineIdlePercent ?? '–'} | ${f.backendWaits ?? '–'} |`;
  const lines = [
    '# Ledger posting benchmark',
    '',
    `\`make bench-ledger\`, ${new Date().toISOString().slice(0, 10)}: addLedgerEntry with 2-line runtime entries, ${report.seconds} s per run, ` +
      `${report.cpus} cores shared by the load generator, the server and PostgreSQL (fsync=${report.fsync}, synchronous_commit=${report.synchronousCommit}), pool ${report.pool}.`,
    '',
    '| Run | entries/s | p50 ms | p99 ms | errors | statements/entry | WAL records/entry | WAL bytes/entry | server RSS MiB | server CPU ms/entry | machine idle % | busy backends (mean), by wait |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(report.results).flatMap(([name, result]) => [
      row(`${name}, HTTP, group commit (the default)`, result.http),
      row(`${name}, HTTP, one entry per commit (POSTING_GROUP_MAX_ENTRIES=1)`, result.httpUngrouped),
      row(`${name}, posting SQL direct, one entry per commit`, result.direct),
    ]),
    '',
    ...Object.entries(report.results).map(
      ([name, result]) =>
        `- ${name}: HTTP with group commit is ${result.ratio}× the direct one-entry-per-commit SQL, ` +
        `${Math.round((result.http.entriesPerSecond / result.httpUngrouped.entriesPerSecond) * 100) / 100}× the same server without grouping.`,
    ),
    `- WAL records per entry by kind (pg_walinspect): ${Object.entries(report.results)
      .flatMap(([name, result]) => [
        `${name} grouped: ${result.http.walRecordsByKind}`,
        `${name} one per commit: ${result.httpUngrouped.walRecordsByKind}`,
      ])
      .join('; ')}.`,
    `- Accounts whose stored balance differs from the sum of their lines after the runs: ${report.balancesNotEqualToLines}.`,
    '',
  ];
  fs.writeFileSync(path.join(dir, 'ledger-post.md'), lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
