import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { connect, type Sql } from '../src/db/sql.js';
import { fetchToken } from '../test/support/token.js';
import { compileIfBuildable, startTally, stopTally, type TallyProcess } from '../test/support/tallyProcess.js';
import { runLoad, type LoadFigures, type Request } from './support/load.js';

// `make bench`: every request path of the REST-path issue in one run, against a spawned server on
// a durable embedded PostgreSQL (fsync and synchronous_commit on), 32 clients: Koa's floor,
// GraphQL `{ __typename }` and a GraphQL read, a REST read and list, invoice create, transaction
// sync and invoice PATCH; rate, p50, p99 and CPU per request of the server, of this load
// generator and of the rest of the machine. `make bench-billing` (`--billing`) runs the floor, the
// REST read and the billing writes only. BENCH_BASELINE=<a checkout of another commit> serves that
// checkout too, on its own database, and measures every case on both in alternating rounds.
// BENCH_SERVER_ENV and BENCH_BASELINE_ENV (NAME=value,...) configure either server: with
// BENCH_BASELINE=. two settings of one checkout compare in one run. BENCH_BASELINE_NODE_FLAGS
// (space-separated) starts the baseline with Node flags of its own (--max-semi-space-size=32, say).
// Results: bench/results/requests.{md,json} (billing.{md,json} for --billing).

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
// BENCH_RATE=3000 offers a fixed load instead of a closed loop: the server's CPU per request then
// compares two checkouts within a few percent, where saturated rates move by ten.
const WARM_UP_SECONDS = 2;
const STATEMENTS = Boolean(process.env.BENCH_STATEMENTS);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const BILLING_ONLY = process.argv.includes('--billing');
// BENCH_CASES=rest-read,graphql-read runs only those (a partial run prints and writes no results).
const ONLY = process.env.BENCH_CASES?.split(',').map((key) => key.trim());

type Server = { label: string; tally: TallyProcess; token: string };
type Case = {
  key: string;
  name: string;
  billing: boolean;
  okStatus: number;
  /** Runs before each round on each server (the PATCH case creates the invoices it patches). */
  prepare?: (server: Server) => Promise<void>;
  next: () => Request;
  readsAnswers?: boolean;
};

const GET_LEDGER = `query getLedger($ik: SafeString!) {
  ledger(ledger: { ik: $ik }) { id ik name created balanceUTCOffset }
}`;

const lineItems = Array.from({ length: 10 }, (_, i) => ({
  description: `Item ${i}`,
  product_id: i % 2 ? 'beans' : 'delivery',
  type: i < 8 ? 'payin' : 'payout',
  user: { external_id: `user-${i % 4}` },
  currency_code: 'USD',
  price: { unit_price: String(100 + i), quantity: 1 + (i % 3) },
}));
const SEED_INVOICES = 50;
// Every created id is new across rounds and servers (each server has its own database).
let sequence = 0;
const idleInvoices: { id: string; version: number }[] = [];

const cases: Case[] = [
  { key: 'healthz', name: 'GET /healthz (Koa floor)', billing: true, okStatus: 200, next: get('/healthz') },
  {
    key: 'typename',
    name: 'GraphQL { __typename }',
    billing: false,
    okStatus: 200,
    next: graphql(JSON.stringify({ query: '{ __typename }' })),
  },
  {
    key: 'graphql-read',
    name: 'GraphQL getLedger (auth, one read)',
    billing: false,
    okStatus: 200,
    next: graphql(JSON.stringify({ query: GET_LEDGER, variables: { ik: 'bench' }, operationName: 'getLedger' })),
  },
  {
    key: 'rest-read',
    name: 'GET /billing/products/{code} (auth, one read)',
    billing: true,
    okStatus: 200,
    next: get('/billing/products/beans'),
  },
  {
    key: 'rest-list',
    name: 'GET /billing/products (list)',
    billing: true,
    okStatus: 200,
    next: get('/billing/products'),
  },
  {
    key: 'invoice-create',
    name: 'POST /billing/invoices, 10 line items',
    billing: true,
    okStatus: 201,
    next: () => ({
      method: 'POST',
      path: '/billing/invoices',
      body: JSON.stringify({
        invoice_id: `inv-${++sequence}`,
        line_items: lineItems,
        tags: [{ key: 'bench', value: 'yes' }],
      }),
    }),
  },
  {
    key: 'transaction-sync',
    name: 'POST /billing/transactions, 2 allocations',
    billing: true,
    okStatus: 201,
    next: () => ({
      method: 'POST',
      path: '/billing/transactions',
      body: JSON.stringify({
        account: { external_id: `bank-${++sequence % 4}` },
        amount: '300',
        currency: 'USD',
        external_id: `tx-${sequence}`,
        posted: '2026-11-05T10:00:00Z',
        allocations: [
          {
            amount: '100',
            invoice_id: `seed-${sequence % SEED_INVOICES}`,
            type: 'invoice_payin',
            user: { external_id: 'user-0' },
          },
          {
            amount: '150',
            invoice_id: `seed-${(sequence + 7) % SEED_INVOICES}`,
            type: 'invoice_payin',
            user: { external_id: 'user-1' },
          },
        ],
      }),
    }),
  },
  {
    key: 'invoice-patch',
    name: 'PATCH /billing/invoices/{id}, one tag',
    billing: true,
    okStatus: 200,
    // As many invoices as clients, each patched by one request at a time: a request names the
    // version the previous one made (a conflict would count as an error).
    prepare: async (server) => {
      idleInvoices.length = 0;
      for (let client = 0; client < CLIENTS; client++) {
        const id = `patch-${++sequence}`;
        await call(server, 'POST', '/billing/invoices', { invoice_id: id, line_items: lineItems });
        idleInvoices.push({ id, version: 1 });
      }
    },
    readsAnswers: true,
    next: () => {
      const invoice = idleInvoices.pop()!;
      return {
        method: 'PATCH',
        path: `/billing/invoices/${invoice.id}`,
        body: JSON.stringify({
          current_invoice_version: invoice.version,
          tags: { set: [{ key: 'n', value: String(invoice.version) }] },
        }),
        answered: (status) => {
          if (status === 200) invoice.version++;
          idleInvoices.push(invoice);
        },
      };
    },
  },
];

function get(pathname: string) {
  return (): Request => ({ method: 'GET', path: pathname });
}

function graphql(body: string) {
  return (): Request => ({ method: 'POST', path: '/graphql', body });
}

async function main() {
  const selected = cases.filter((c) => (ONLY ? ONLY.includes(c.key) : !BILLING_ONLY || c.billing));
  const postgres = await startEmbeddedPostgres({
    dataDir: '',
    ephemeral: true,
    fast: false,
    // BENCH_STATEMENTS=1 prints each case's costliest statements on this checkout's database.
    settings: {
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': 'all',
      'pg_stat_statements.track_planning': STATEMENTS ? 'on' : 'off',
      // BENCH_PG_SETTINGS=name=value,name=value for experiments (synchronous_commit=off, say).
      ...Object.fromEntries(
        (process.env.BENCH_PG_SETTINGS?.split(',') ?? []).map((setting) => setting.split('=') as [string, string]),
      ),
    },
  });
  const servers: Server[] = [];
  const databaseUrl = await ensureDatabase(postgres.url, 'tally_bench');
  const statements = connect(databaseUrl, { max: 1 });
  try {
    servers.push(await serve('this checkout', databaseUrl, undefined, process.env.BENCH_SERVER_ENV));
    await statements`create extension if not exists pg_stat_statements`;
    if (process.env.BENCH_BASELINE) {
      const url = await ensureDatabase(postgres.url, 'tally_bench_baseline');
      servers.push(
        await serve(
          'baseline',
          url,
          path.resolve(process.env.BENCH_BASELINE),
          process.env.BENCH_BASELINE_ENV,
          process.env.BENCH_BASELINE_NODE_FLAGS?.split(' ').filter(Boolean),
        ),
      );
    }
    const samples = new Map<string, LoadFigures[]>();
    // Round 0 warms each server's JIT up on every case and is not counted; then the tables it
    // filled are analyzed, as autovacuum does within a minute of use: plans made on a new, empty
    // table scan it, and statements cached then kept scanning thousands of rows in a 5 s run.
    for (let round = 0; round <= ROUNDS; round++) {
      if (round === 1) await analyze(postgres.url, servers.length);
      for (const benchCase of selected) {
        for (const server of servers) {
          await benchCase.prepare?.(server);
          if (STATEMENTS) await statements`select pg_stat_statements_reset()`;
          const figures = await runLoad({
            baseUrl: server.tally.baseUrl,
            headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
            clients: CLIENTS,
            seconds: round === 0 ? WARM_UP_SECONDS : SECONDS,
            serverPid: server.tally.child.pid!,
            next: benchCase.next,
            okStatus: benchCase.okStatus,
            readsAnswers: benchCase.readsAnswers,
            rate: RATE,
          });
          if (round === 0) continue;
          if (STATEMENTS && server === servers[0]) console.log(await costliestStatements(statements));
          const key = `${benchCase.key}|${server.label}`;
          samples.set(key, [...(samples.get(key) ?? []), figures]);
          console.log(
            `round ${round}  ${server.label.padEnd(13)} ${benchCase.name.padEnd(46)} ${figures.requestsPerSecond} req/s  p50 ${figures.p50Ms}  p99 ${figures.p99Ms}  CPU µs/req: server ${figures.serverCpuUsPerRequest}, load ${figures.loadCpuUsPerRequest}, rest ${figures.restCpuUsPerRequest}, idle ${figures.machineIdlePercent} %${figures.errors ? `  errors ${figures.errors}: ${figures.statuses}` : ''}`,
          );
        }
      }
    }
    if (ONLY || RATE) console.log('A partial or fixed-rate run (BENCH_CASES, BENCH_RATE): no results written.');
    else write(selected, servers, samples);
  } finally {
    await statements.end();
    for (const server of servers) await stopTally(server.tally);
    await postgres.stop();
  }
}

async function analyze(postgresUrl: string, databases: number): Promise<void> {
  for (const name of ['tally_bench', 'tally_bench_baseline'].slice(0, databases)) {
    const sql = connect(await ensureDatabase(postgresUrl, name), { max: 1 });
    await sql`analyze`;
    await sql.end();
  }
}

/** The statements that took the database's time in the last run, with calls and mean time. */
async function costliestStatements(sql: Sql): Promise<string> {
  const rows = await sql<
    { calls: string; mean_us: number; total_ms: number; plans: string; plan_us: number; query: string }[]
  >`
    select calls::text, round(mean_exec_time * 1000)::int as mean_us, round(total_exec_time)::int as total_ms,
           plans::text, round(mean_plan_time * 1000)::int as plan_us,
           regexp_replace(left(query, 160), '[[:space:]]+', ' ', 'g') as query
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = current_database() and query not like '%pg_stat_statements%'
    order by total_exec_time + total_plan_time desc limit 12`;
  return rows
    .map(
      (r) =>
        `    ${String(r.total_ms).padStart(6)} ms ${r.calls.padStart(7)} calls ${String(r.mean_us).padStart(6)} µs, ${r.plans.padStart(7)} plans ${String(r.plan_us).padStart(6)} µs  ${r.query}`,
    )
    .join('\n');
}

async function serve(
  label: string,
  databaseUrl: string,
  cwd?: string,
  settings?: string,
  nodeFlags?: readonly string[],
): Promise<Server> {
  const tally = await startTally(
    {
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_CLIENT_ID: 'bench',
      BOOTSTRAP_CLIENT_SECRET: 'bench-secret',
      ...Object.fromEntries(
        (settings?.split(',') ?? []).filter(Boolean).map((setting) => {
          const at = setting.indexOf('=');
          if (at < 1) throw new Error(`A server setting is NAME=value, not ${setting}`);
          return [setting.slice(0, at), setting.slice(at + 1)];
        }),
      ),
    },
    // Served as `make run` serves it: compiled, unless the checkout predates the build.
    { cwd, startOutputOnly: true, compiled: await compileIfBuildable(cwd), nodeFlags },
  );
  const server = { label, tally, token: await fetchToken(tally.baseUrl, 'bench', 'bench-secret') };
  await call(server, 'POST', '/graphql', {
    query: 'mutation { createLedger(ik: "bench", ledger: { name: "Bench" }) { __typename } }',
  });
  for (const code of ['beans', 'delivery']) {
    await call(server, 'POST', '/billing/products', { code, description: code, paid_by_roles: [{ name: 'buyer' }] });
  }
  for (let i = 0; i < SEED_INVOICES; i++) {
    await call(server, 'POST', '/billing/invoices', { invoice_id: `seed-${i}`, line_items: lineItems });
  }
  return server;
}

/** A setup request; anything but a success stops the benchmark. */
async function call(server: Server, method: string, pathname: string, body: object) {
  const agent = new http.Agent({ keepAlive: false });
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      `${server.tally.baseUrl}${pathname}`,
      { method, agent, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
  if (answer.status >= 300 || answer.text.includes('"errors"')) {
    throw new Error(`setup ${method} ${pathname} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  }
}

function write(selected: Case[], servers: Server[], samples: Map<string, LoadFigures[]>) {
  // The best round of each case: on a shared machine the slower rounds measure the neighbours.
  const best = (key: string) => samples.get(key)!.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  const rate = (caseKey: string, label = servers[0].label) =>
    samples.has(`${caseKey}|${label}`) ? best(`${caseKey}|${label}`).requestsPerSecond : NaN;
  const ratio = (a: string, b: string) => Math.round((rate(a) / rate(b)) * 100) / 100;
  const rows = selected.flatMap((benchCase) =>
    servers.map((server) => {
      const key = `${benchCase.key}|${server.label}`;
      return {
        case: benchCase.name,
        server: server.label,
        ...best(key),
        runs: samples.get(key)!.map((f) => f.requestsPerSecond),
      };
    }),
  );
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    settings: {
      clients: CLIENTS,
      seconds: SECONDS,
      rounds: ROUNDS,
      note: 'load generator, server and PostgreSQL (fsync and synchronous_commit on) share the machine; best round of each case',
    },
    results: rows,
    ratios: {
      rest_read_over_graphql_read: ratio('rest-read', 'graphql-read'),
      rest_read_over_koa_floor: ratio('rest-read', 'healthz'),
      typename_over_koa_floor: ratio('typename', 'healthz'),
    },
  };
  const name = BILLING_ONLY ? 'billing' : 'requests';
  const dir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  const lines = [
    `# Request paths (\`make ${BILLING_ONLY ? 'bench-billing' : 'bench'}\`)`,
    '',
    `${report.date.slice(0, 10)}, ${report.machine.cpus} cores (${report.machine.model}), Node ${report.machine.node}: ${CLIENTS} clients, ${SECONDS} s per run, ${ROUNDS} rounds alternating the cases${servers.length > 1 ? ' and the servers' : ''}. ${report.settings.note}. CPU per request: the server process, the load generator, and the rest of the machine (PostgreSQL, mostly).`,
    '',
    '| Case | Server | req/s | p50 ms | p99 ms | errors | server µs/req | load gen µs/req | rest µs/req | machine idle % | server RSS MiB | runs |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.case} | ${r.server} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} | ${r.serverCpuUsPerRequest} | ${r.loadCpuUsPerRequest} | ${r.restCpuUsPerRequest} | ${r.machineIdlePercent} | ${r.serverRssMiB} | ${r.runs.join(' / ')} |`,
    ),
    '',
    `Ratios (this checkout, same run): REST read / GraphQL read ${report.ratios.rest_read_over_graphql_read}, REST read / Koa floor ${report.ratios.rest_read_over_koa_floor}, \`{ __typename }\` / Koa floor ${report.ratios.typename_over_koa_floor}.`,
    '',
  ];
  fs.writeFileSync(path.join(dir, `${name}.md`), lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
