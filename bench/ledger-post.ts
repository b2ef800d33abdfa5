import fs from 'node:fs';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { postLedgerEntries, postLedgerEntry, type EntryPosting } from '../src/db/ledgerEntries.js';
import { checkLedgerInvariants } from '../src/db/ledgerChecks.js';
import { migrate } from '../src/db/migrate.js';
import { connect, type Sql } from '../src/db/sql.js';
import { newId } from '../src/core/ids.js';
import { entryPosting, postingLine } from '../test/support/postings.js';
import { fetchToken } from '../test/support/token.js';
import { compileIfBuildable, startTally, stopTally } from '../test/support/tallyProcess.js';
import { databaseCounters, sampleBackends, type DatabaseFigures } from './support/databaseCounters.js';
import { gqlCall } from './support/graphqlPost.js';
import { runLoad } from './support/load.js';
import { busyJiffiesSince, idlePercentSince, machineTimes } from './support/processStats.js';
import { installReferenceLedger, referenceTransfer, referenceTransfers } from './support/referenceLedger.js';

// `make bench-ledger`: the posting engine against spawned servers on a durable embedded
// PostgreSQL (fsync and synchronous_commit on), every phase in one run so each figure reads as a
// ratio: the GraphQL floor (`{ __typename }`); 2-line transfers among 10,000 accounts (50
// clients) and with one hot account (64 clients, the account strong, then eventual); first use
// (32 clients, every entry creates a template instance and its subtree); addLedgerEntries with 15
// transfers a call (16 clients). Posting phases run on a server with group commit (the default)
// and on one without; transfers also run on the posting SQL driven directly and on a minimal
// SQL reference ledger (bench/support/referenceLedger.ts). Results: bench/results/ledger-post.{md,json}.

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const POOL = Number(process.env.BENCH_POOL ?? 10);
// BENCH_PHASES=transfers,hot strong (names as in the report) runs only those, for sweeps of the settings.
const PHASES = process.env.BENCH_PHASES?.split(',').map((phase) => phase.trim());
// BENCH_RUNS=group runs only the runs whose name contains it. A partial run prints, and writes no results.
const RUNS = process.env.BENCH_RUNS;
// BENCH_BATCH_CLIENTS=1 posts the batches from one client: each statement's time without contention.
const BATCH_CLIENTS = Number(process.env.BENCH_BATCH_CLIENTS ?? 16);
// Each HTTP run is first sent for this long unmeasured (other iks), then the database is quieted:
// a server measured warm, its code compiled and what it caches read, as one that has been up a while.
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const ACCOUNTS = 10_000;
const SEED_ENTRIES = 20_000;
// Balances updated in the posting's transaction (the hot phase runs again with the account eventual).
const STRONG = '{ ownBalanceUpdates: strong, totalBalanceUpdates: strong }';
const EVENTUAL = '{ ownBalanceUpdates: eventual, totalBalanceUpdates: eventual }';

type Figures = Partial<DatabaseFigures> & {
  entriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  requests: number;
  serverRssMiB?: number;
  /** CPU per entry of the measured server, of the load generator, and of the rest of the machine (PostgreSQL, mostly). */
  serverCpuUsPerEntry?: number;
  /** Of it, the server's main thread (the event loop, where every request's JavaScript runs), and the share of the run it was on a core. */
  serverMainThreadCpuUsPerEntry?: number;
  serverMainThreadBusyPercent?: number;
  loadCpuUsPerEntry?: number;
  restCpuUsPerEntry?: number;
  /** Share of the machine's CPU time that was idle during the run (both cores). */
  machineIdlePercent?: number;
  /** Where Tally's database backends were, sampled every 20 ms: the top states and wait events. */
  backendWaits?: string;
};

/** What the clients send: the body of the nth request of the run and the entries it posts. */
type Load = {
  clients: number;
  request: (n: number, random: () => number) => { body: string; entries: number };
  /** Whether the answer is the success the request asks for. */
  succeeded: (text: string) => boolean;
};
type Server = { baseUrl: string; token: string; pid: number };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const round = (value: number) => Math.round(value * 10) / 10;
const seeded = (seed: number) => {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
};

function summarize(latencies: number[], entries: number, errors: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    entriesPerSecond: Math.round(entries / SECONDS),
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    errors,
    requests: latencies.length,
  };
}

/**
 * Every run starts from the same quiet database: the servers' fold has drained what earlier runs
 * queued, and a checkpoint has written their pages. Otherwise a run pays for the fold and the
 * page writes of the runs before it (first use measured 807 entries/s after the hot phases,
 * 1,160/s alone).
 */
async function quiet(sql: Sql): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const [{ queued }] = await sql<{ queued: number }[]>`select count(*)::int as queued from ledger_balance_queue`;
    if (queued === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await sql`checkpoint`;
}

/** The load's requests as runLoad takes them, numbered from `first`; `answered` hears each answer. */
function requestsOf(load: Load, first: number, answered: (status: number, body: string, entries: number) => void) {
  let sent = first;
  const random = seeded(7919);
  return () => {
    const request = load.request(sent++, random);
    return {
      method: 'POST' as const,
      path: '/graphql',
      body: request.body,
      answered: (status: number, body: string) => answered(status, body, request.entries),
    };
  };
}

/** The load for WARMUP_SECONDS, unmeasured, with requests numbered past any a measured run sends. */
async function warmUp(server: Server, load: Load): Promise<void> {
  await runLoad({
    baseUrl: server.baseUrl,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    clients: load.clients,
    seconds: WARMUP_SECONDS,
    serverPid: server.pid,
    okStatus: 200,
    readsAnswers: true,
    next: requestsOf(load, 10_000_000, () => {}),
  });
}

async function overHttp(sql: Sql, server: Server, load: Load): Promise<Figures> {
  let answered = 0;
  let entries = 0;
  let errors = 0;
  let firstError = '';
  const counted = await databaseCounters(sql);
  const machineBefore = machineTimes();
  const stopSampling = sampleBackends(sql);
  const figures = await runLoad({
    baseUrl: server.baseUrl,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    clients: load.clients,
    seconds: SECONDS,
    serverPid: server.pid,
    okStatus: 200,
    readsAnswers: true,
    next: requestsOf(load, 0, (status, body, carried) => {
      answered++;
      if (status === 200 && load.succeeded(body)) {
        entries += carried;
      } else {
        errors++;
        firstError ||= `${status} ${body.slice(0, 200)}`;
      }
    }),
  });
  const backendWaits = await stopSampling();
  const machineIdlePercent = idlePercentSince(machineBefore);
  if (firstError) console.log(`  first error: ${firstError}`);
  // CPU per request spread over the entries a request carries.
  const perEntry = (usPerRequest: number) => Math.round((usPerRequest * answered) / Math.max(1, entries));
  return {
    entriesPerSecond: Math.round(entries / figures.seconds),
    p50Ms: figures.p50Ms,
    p99Ms: figures.p99Ms,
    errors,
    requests: answered,
    ...(await counted(entries)),
    serverRssMiB: figures.serverRssMiB,
    serverCpuUsPerEntry: perEntry(figures.serverCpuUsPerRequest),
    serverMainThreadCpuUsPerEntry: perEntry(figures.serverMainThreadCpuUsPerRequest),
    serverMainThreadBusyPercent: figures.serverMainThreadBusyPercent,
    loadCpuUsPerEntry: perEntry(figures.loadCpuUsPerRequest),
    restCpuUsPerEntry: perEntry(figures.restCpuUsPerRequest),
    machineIdlePercent,
    backendWaits,
  };
}

/** Clients calling the database directly, one entry per call, at the server's pool size. */
async function overSql(
  sql: Sql,
  clients: number,
  post: (client: number, n: number, random: () => number) => Promise<unknown>,
  entriesPerCall = 1,
): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const counted = await databaseCounters(sql);
  const machineBefore = machineTimes();
  const clientBefore = process.cpuUsage();
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const random = seeded(client * 104729 + 3);
      for (let n = 0; performance.now() < deadline; n++) {
        const started = performance.now();
        try {
          await post(client, n, random);
        } catch {
          errors++;
        }
        latencies.push(performance.now() - started);
      }
    }),
  );
  const entries = (latencies.length - errors) * entriesPerCall;
  // This process is the SQL client here (in the load generator's column); the rest is PostgreSQL's.
  const clientUsage = process.cpuUsage(clientBefore);
  const clientUs = clientUsage.user + clientUsage.system;
  const busyUs = busyJiffiesSince(machineBefore) * 10_000;
  return {
    ...summarize(latencies, entries, errors),
    ...(await counted(entries)),
    loadCpuUsPerEntry: Math.round(clientUs / Math.max(1, entries)),
    restCpuUsPerEntry: Math.round(Math.max(0, busyUs - clientUs) / Math.max(1, entries)),
    machineIdlePercent: idlePercentSince(machineBefore),
  };
}

const POST = `mutation post($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on AddLedgerEntryResult { entry { id } } ... on Error { code message } } }`;
const POST_BATCH = `mutation post($entries: [AddLedgerEntryInput!]!) {
  addLedgerEntries(entries: $entries) { __typename ... on AddLedgerEntriesResult { results { entry { id } } } ... on Error { code message } } }`;
const posted = (text: string) => text.includes('"AddLedgerEntryResult"');

/** A 2-line transfer of 1 between two accounts of a ledger, named by path. */
const transferInput = (ledger: string, [from, to]: [string, string]) => ({
  ledger: { ik: ledger },
  lines: [
    { account: { path: from }, amount: '1' },
    { account: { path: to }, amount: '1' },
  ],
});

/** Single transfers over addLedgerEntry; `run` keeps each run's iks its own (the same iks on another server would replay). */
const transfers = (run: string, clients: number, ledger: string, pick: Pick): Load => ({
  clients,
  request: (n, random) => ({
    body: JSON.stringify({
      query: POST,
      variables: { ik: `${run}-${n}`, entry: transferInput(ledger, pick(random)) },
    }),
    entries: 1,
  }),
  succeeded: posted,
});

/** Typed entries of the schema ledger: each funds a user never seen before, creating users:<id> and its subtree. */
const firstUses = (run: string): Load => ({
  clients: 32,
  request: (n) => ({
    body: JSON.stringify({
      query: POST,
      variables: {
        ik: `${run}-${n}`,
        entry: {
          ledger: { ik: 'wallets' },
          type: 'fund_user',
          parameters: { user_id: `${run}-${n}`, amount: '1' },
        },
      },
    }),
    entries: 1,
  }),
  succeeded: posted,
});

const BATCH = 15;
const batches = (run: string, pick: Pick): Load => ({
  clients: BATCH_CLIENTS,
  request: (n, random) => ({
    body: JSON.stringify({
      query: POST_BATCH,
      variables: {
        entries: Array.from({ length: BATCH }, (_, i) => ({
          ik: `${run}-${n}-${i}`,
          entry: transferInput('spread', pick(random)),
        })),
      },
    }),
    entries: BATCH,
  }),
  succeeded: (text) => text.includes('"AddLedgerEntriesResult"'),
});

const floor: Load = {
  clients: 50,
  request: () => ({ body: JSON.stringify({ query: '{ __typename }' }), entries: 1 }),
  succeeded: (text) => text.includes('"Mutation"') || text.includes('"Query"'),
};

type Pick = (random: () => number) => [string, string];

/** A 2-line transfer of 1 USD between two accounts named by path, as the posting functions take it. */
function transfer(
  ledger: { workspaceId: string; id: string },
  ids: Map<string, string>,
  [from, to]: [string, string],
  ik: string,
): EntryPosting {
  const line = (path: string) => postingLine(newId('line'), ids.get(path)!, '1');
  return entryPosting({
    workspaceId: ledger.workspaceId,
    ledgerId: ledger.id,
    entryId: newId('ent'),
    ik,
    requestHash: 'bench',
    posted: new Date().toISOString(),
    lines: [line(from), line(to)],
  });
}

async function ledgerOf(sql: Sql, ik: string) {
  const [ledger] = await sql<
    { id: string; workspaceId: string }[]
  >`select id, workspace_id as "workspaceId" from ledgers where ik = ${ik}`;
  const rows = await sql<
    { id: string; path: string }[]
  >`select id, path from ledger_accounts where ledger_id = ${ledger.id}`;
  return { ledger, ids: new Map(rows.map((row) => [row.path, row.id])) };
}

const WALLETS_SCHEMA = {
  key: 'bench-wallets',
  chartOfAccounts: {
    defaultCurrency: { code: 'USD' },
    defaultCurrencyMode: 'single',
    accounts: [
      { key: 'assets', type: 'asset', children: [{ key: 'cash' }] },
      {
        key: 'liabilities',
        type: 'liability',
        children: [
          {
            key: 'users',
            template: true,
            name: 'User {{user_id}}',
            children: [{ key: 'available' }, { key: 'pending' }],
          },
        ],
      },
    ],
  },
  ledgerEntries: {
    types: [
      {
        type: 'fund_user',
        description: 'Funding {{user_id}}',
        lines: [
          { key: 'cash', account: { path: 'assets/cash' }, amount: '{{amount}}' },
          { key: 'wallet', account: { path: 'liabilities/users:{{user_id}}/available' }, amount: '{{amount}}' },
        ],
      },
    ],
  },
};

/** Ledgers and accounts of every phase, then 20,000 entries in each transfer ledger (a steady state, analyzed). */
async function seed(sql: Sql, server: Server) {
  const call = (query: string, variables?: Record<string, unknown>) =>
    gqlCall(server.baseUrl, server.token, query, variables);
  for (const ik of ['spread', 'hot', 'hot-eventual'])
    await call(`mutation { createLedger(ik: "${ik}", ledger: { name: "${ik}" }) { __typename } }`);
  // Half assets, half liabilities: every asset-to-liability pair balances with +1 and +1.
  for (let batch = 0; batch < ACCOUNTS / 200; batch++) {
    const type = batch % 2 === 0 ? 'asset' : 'liability';
    const accounts = Array.from(
      { length: 200 },
      (_, i) => `{ ik: "${type[0]}${batch * 200 + i}", name: "n", type: ${type}, consistencyConfig: ${STRONG} }`,
    ).join(',');
    await call(
      `mutation { createLedgerAccounts(ledger: { ik: "spread" }, ledgerAccounts: [${accounts}]) { __typename } }`,
    );
  }
  for (const [ik, consistency] of [
    ['hot', STRONG],
    ['hot-eventual', EVENTUAL],
  ]) {
    const others = Array.from(
      { length: 199 },
      (_, i) => `{ ik: "l${i}", name: "n", type: liability, consistencyConfig: ${STRONG} }`,
    ).join(',');
    await call(
      `mutation { createLedgerAccounts(ledger: { ik: "${ik}" }, ledgerAccounts: [{ ik: "hot", name: "Hot", type: asset, consistencyConfig: ${consistency} }, ${others}]) { __typename } }`,
    );
  }
  await call(`mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename } }`, {
    schema: WALLETS_SCHEMA,
  });
  await call(
    'mutation { createLedger(ik: "wallets", ledger: { name: "Wallets" }, schema: { key: "bench-wallets" }) { __typename } }',
  );
  for (const [ik, pick] of [
    ['spread', spreadPick],
    ['hot', hotPick],
    ['hot-eventual', hotPick],
  ] as const) {
    const { ledger, ids } = await ledgerOf(sql, ik);
    const random = seeded(17);
    for (let group = 0; group < SEED_ENTRIES / 100; group++) {
      await postLedgerEntries(
        sql,
        Array.from({ length: 100 }, () => transfer(ledger, ids, pick(random), `seed-${newId('ent')}`)),
      );
    }
  }
  await installReferenceLedger(sql, ACCOUNTS);
  await sql`analyze`;
}

const assets = Array.from({ length: ACCOUNTS / 2 }, (_, i) => i).map(
  (i) => `a${Math.floor(i / 200) * 400 + (i % 200)}`,
);
const liabilities = assets.map((path) => `l${Number(path.slice(1)) + 200}`);
const spreadPick: Pick = (random) => [
  assets[Math.floor(random() * assets.length)],
  liabilities[Math.floor(random() * liabilities.length)],
];
const hotPick: Pick = (random) => ['hot', `l${Math.floor(random() * 199)}`];

type Runs = Record<string, Record<string, Figures>>;

async function main() {
  // BENCH_DATA_DIR keeps the database after the run, for inspecting its statements by hand.
  const postgres = await startEmbeddedPostgres({
    dataDir: process.env.BENCH_DATA_DIR ?? '',
    ephemeral: !process.env.BENCH_DATA_DIR,
    fast: false,
    // Statements per entry come from pg_stat_statements (BENCH_STATEMENTS=1 lists the costliest, nested ones too).
    settings: {
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': process.env.BENCH_STATEMENTS ? 'all' : 'top',
      'pg_stat_statements.track_planning': process.env.BENCH_STATEMENTS ? 'on' : 'off',
      // BENCH_PG_SETTINGS=name=value,name=value for experiments (auto_explain, say).
      ...Object.fromEntries(
        (process.env.BENCH_PG_SETTINGS?.split(',') ?? []).map((setting) => setting.split('=') as [string, string]),
      ),
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
  // Seeded through a process of its own, so the measured servers' memory is that of posting,
  // not of the 25 large account-creating requests before it.
  // The servers run as `make run` runs them: compiled.
  const compiled = await compileIfBuildable();
  const seeder = await startTally(serverEnv, { startOutputOnly: true, compiled });
  try {
    await seed(sql, {
      baseUrl: seeder.baseUrl,
      token: await fetchToken(seeder.baseUrl, 'bench', 'bench-secret'),
      pid: seeder.child.pid!,
    });
  } finally {
    await stopTally(seeder);
  }
  const groupedProcess = await startTally(
    {
      ...serverEnv,
      ...(process.env.BENCH_GROUP_MAX_ENTRIES
        ? { POSTING_GROUP_MAX_ENTRIES: process.env.BENCH_GROUP_MAX_ENTRIES }
        : {}),
      ...(process.env.BENCH_GROUPS_IN_FLIGHT ? { POSTING_GROUPS_IN_FLIGHT: process.env.BENCH_GROUPS_IN_FLIGHT } : {}),
    },
    { startOutputOnly: true, compiled },
  );
  // The same server with group commit off, measured in the same run for the ratio.
  const ungroupedProcess = await startTally(
    { ...serverEnv, POSTING_GROUP_MAX_ENTRIES: '1' },
    { startOutputOnly: true, compiled },
  );
  try {
    const serverOf = async (tally: typeof groupedProcess): Promise<Server> => ({
      baseUrl: tally.baseUrl,
      token: await fetchToken(tally.baseUrl, 'bench', 'bench-secret'),
      pid: tally.child.pid!,
    });
    const grouped = await serverOf(groupedProcess);
    const ungrouped = await serverOf(ungroupedProcess);

    const runs: Runs = {};
    const measure = async (
      phase: string,
      run: string,
      figures: () => Promise<Figures>,
      warm?: () => Promise<unknown>,
    ) => {
      if ((PHASES && !PHASES.includes(phase)) || (RUNS && !run.includes(RUNS))) return;
      if (warm && WARMUP_SECONDS > 0) await warm();
      await quiet(sql);
      console.log(`${phase}, ${run}: running for ${SECONDS} s`);
      const result = await figures();
      (runs[phase] ??= {})[run] = result;
      console.log(`${phase}, ${run}:`, JSON.stringify(result));
    };
    /** A run over HTTP, warmed first with requests numbered past any the run sends. */
    const http = (phase: string, run: string, server: Server, load: Load) =>
      measure(
        phase,
        run,
        () => overHttp(sql, server, load),
        () => warmUp(server, load),
      );
    const direct = async (ledgerIk: string, clients: number, pick: Pick, run: string) => {
      const { ledger, ids } = await ledgerOf(sql, ledgerIk);
      return overSql(sql, clients, (client, n, random) =>
        postLedgerEntry(sql, transfer(ledger, ids, pick(random), `direct-${run}-${client}-${n}`)),
      );
    };
    // Two distinct accounts; the hot phase's every transfer touches account 0, like the hot account.
    const accountPair = (random: () => number, hot = false) => {
      const from = hot ? 0 : Math.floor(random() * ACCOUNTS);
      return [from, (from + 1 + Math.floor(random() * (ACCOUNTS - 1))) % ACCOUNTS] as const;
    };
    const reference = (clients: number, hot: boolean) =>
      overSql(sql, clients, (_client, _n, random) => referenceTransfer(sql, ...accountPair(random, hot)));
    // The reference ledger posting BATCH transfers a call, set-based: what this machine's
    // PostgreSQL alone does for addLedgerEntries, with nothing in front of it.
    const referenceBatches = (clients: number) =>
      overSql(
        sql,
        clients,
        (_client, _n, random) =>
          referenceTransfers(
            sql,
            Array.from({ length: BATCH }, () => accountPair(random)),
          ),
        BATCH,
      );

    await http('floor', 'GraphQL { __typename }', grouped, floor);
    for (const [phase, ledgerIk, clients, pick] of [
      ['transfers', 'spread', 50, spreadPick],
      ['hot strong', 'hot', 64, hotPick],
    ] as const) {
      await http(phase, GROUPED, grouped, transfers(`${ledgerIk}-g`, clients, ledgerIk, pick));
      await http(phase, UNGROUPED, ungrouped, transfers(`${ledgerIk}-u`, clients, ledgerIk, pick));
      await measure(phase, 'posting SQL direct, one entry per commit', () => direct(ledgerIk, clients, pick, phase));
      await measure(phase, 'minimal SQL reference ledger', () => reference(clients, ledgerIk === 'hot'));
    }
    await http('hot eventual', GROUPED, grouped, transfers('hotev-g', 64, 'hot-eventual', hotPick));
    await http('hot eventual', UNGROUPED, ungrouped, transfers('hotev-u', 64, 'hot-eventual', hotPick));
    await http('first use', GROUPED, grouped, firstUses('first-g'));
    await http('first use', UNGROUPED, ungrouped, firstUses('first-u'));
    await http('addLedgerEntries (15 a call)', 'HTTP', grouped, batches('batch', spreadPick));
    await measure('addLedgerEntries (15 a call)', 'minimal SQL reference ledger, 15 transfers a call', () =>
      referenceBatches(16),
    );

    const invariants = await checkLedgerInvariants(sql);
    if (PHASES || RUNS) {
      console.log(`invariants: ${invariants.length === 0 ? 'clean' : JSON.stringify(invariants.slice(0, 3))}`);
      return;
    }
    write({
      seconds: SECONDS,
      pool: POOL,
      fsync: settings[0].fsync,
      synchronousCommit: settings[0].sync,
      cpus: (await import('node:os')).cpus().length,
      runs,
      invariants,
    });
  } finally {
    await stopTally(groupedProcess);
    await stopTally(ungroupedProcess);
    await sql.end();
    await postgres.stop();
  }
}

const GROUPED = 'HTTP, group commit (the default)';
const UNGROUPED = 'HTTP, one entry per commit (POSTING_GROUP_MAX_ENTRIES=1)';

type Report = {
  seconds: number;
  pool: number;
  fsync: string;
  synchronousCommit: string;
  cpus: number;
  runs: Runs;
  invariants: Awaited<ReturnType<typeof checkLedgerInvariants>>;
};

function write(report: Report) {
  const dir = path.resolve(import.meta.dirname, 'results');
  fs.writeFileSync(
    path.join(dir, 'ledger-post.json'),
    `${JSON.stringify({ date: new Date().toISOString(), ...report }, null, 2)}\n`,
  );
  const { runs } = report;
  const row = (name: string, f: Figures) =>
    `| ${name} | ${f.entriesPerSecond} | ${f.p50Ms} | ${f.p99Ms} | ${f.errors} | ${f.statementsPerEntry ?? '–'} | ${f.walRecordsPerEntry ?? '–'} | ${f.walBytesPerEntry ?? '–'} | ${f.serverRssMiB ?? '–'} | ${f.serverCpuUsPerEntry ?? '–'} | ${f.serverMainThreadCpuUsPerEntry ?? '–'} | ${f.serverMainThreadBusyPercent ?? '–'} | ${f.loadCpuUsPerEntry ?? '–'} | ${f.restCpuUsPerEntry ?? '–'} | ${f.machineIdlePercent ?? '–'} | ${f.backendWaits ?? '–'} |`;
  const ratio = (a: Figures | undefined, b: Figures | undefined) =>
    a && b && b.entriesPerSecond > 0
      ? (Math.round((a.entriesPerSecond / b.entriesPerSecond) * 100) / 100).toString()
      : '–';
  const transfersGrouped = runs.transfers?.[GROUPED];
  const lines = [
    '# Ledger posting benchmark',
    '',
    `\`make bench-ledger\`, ${new Date().toISOString().slice(0, 10)}: every phase in one run, ${report.seconds} s each, ` +
      `${report.cpus} cores shared by the load generator, the servers and PostgreSQL (fsync=${report.fsync}, synchronous_commit=${report.synchronousCommit}), pool ${report.pool}. ` +
      `Each run over HTTP is first sent for ${WARMUP_SECONDS} s unmeasured (a warm server: its code compiled), ` +
      'and each run starts once the balance fold has drained the runs before it and a checkpoint has written their pages. ' +
      'Entries are 2-line transfers over GraphQL unless the phase says otherwise, sent by autocannon (bench/support/load.ts); requests/s for the floor.',
    '',
    '| Phase, run | entries/s | p50 ms | p99 ms | errors | statements/entry | WAL records/entry | WAL bytes/entry | server RSS MiB | server CPU µs/entry | of it, main thread µs/entry | main thread on a core % | load generator CPU µs/entry | rest of the machine (PostgreSQL) CPU µs/entry | machine idle % | busy backends (mean), by wait |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(runs).flatMap(([phase, phaseRuns]) =>
      Object.entries(phaseRuns).map(([run, figures]) => row(`${phase}: ${run}`, figures)),
    ),
    '',
    `- Transfers with group commit: ${ratio(transfersGrouped, runs.floor?.['GraphQL { __typename }'])}× the GraphQL floor, ` +
      `${ratio(transfersGrouped, runs.transfers?.['minimal SQL reference ledger'])}× the minimal SQL reference ledger, ` +
      `${ratio(transfersGrouped, runs.transfers?.[UNGROUPED])}× the same server without grouping.`,
    ...cpuBudgetLine(transfersGrouped, runs.floor?.['GraphQL { __typename }'], report.cpus),
    `- Hot account (strong) with group commit: ${ratio(runs['hot strong']?.[GROUPED], runs['hot strong']?.['minimal SQL reference ledger'])}× the reference ledger, whose bound is its row lock.`,
    `- WAL records per entry by kind (pg_walinspect): ${Object.entries(runs)
      .flatMap(([phase, phaseRuns]) =>
        Object.entries(phaseRuns)
          .filter(([run, figures]) => run.startsWith('HTTP') && figures.walRecordsByKind)
          .map(
            ([run, figures]) =>
              `${phase} ${run === GROUPED ? 'grouped' : run === UNGROUPED ? 'one per commit' : run}: ${figures.walRecordsByKind}`,
          ),
      )
      .join('; ')}.`,
    `- Invariants over everything written (src/db/ledgerChecks.ts): ${report.invariants.length === 0 ? 'clean' : `${report.invariants.length} violations, first: ${JSON.stringify(report.invariants.slice(0, 3))}`}.`,
    '',
  ];
  fs.writeFileSync(path.join(dir, 'ledger-post.md'), lines.join('\n'));
  console.log(lines.join('\n'));
}

/**
 * What 0.4× the floor would cost the machine at the transfers' CPU per entry (server, load
 * generator and PostgreSQL): above the cores there are, no scheduling gets there.
 */
function cpuBudgetLine(transfers: Figures | undefined, floorRun: Figures | undefined, cpus: number): string[] {
  if (!transfers?.serverCpuUsPerEntry || !floorRun) return [];
  const perEntry =
    transfers.serverCpuUsPerEntry + (transfers.loadCpuUsPerEntry ?? 0) + (transfers.restCpuUsPerEntry ?? 0);
  const rate = Math.round(floorRun.entriesPerSecond * 0.4);
  const cores = Math.round(((perEntry * rate) / 1e6) * 100) / 100;
  return [
    `- Transfers cost the machine ${perEntry} µs of CPU each (server ${transfers.serverCpuUsPerEntry}, of it its main thread ${transfers.serverMainThreadCpuUsPerEntry ?? '–'}; load generator ${transfers.loadCpuUsPerEntry}; the rest of the machine, mostly PostgreSQL, ${transfers.restCpuUsPerEntry}): 0.4× the floor, ${rate}/s, would take ${cores} of the ${cpus} cores. The floor's server spends ${floorRun.serverMainThreadCpuUsPerEntry ?? '–'} µs of its main thread a request, which is on a core ${floorRun.serverMainThreadBusyPercent ?? '–'} % of the run: the floor is that one thread's bound.`,
  ];
}

await main();
