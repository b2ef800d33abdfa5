import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { fetchToken } from '../test/support/token.js';
import { startTally, stopTally } from '../test/support/tallyProcess.js';
import { rssMiB } from './support/processStats.js';

// `make bench-billing`: the billing writes over HTTP against a spawned server on a durable
// embedded PostgreSQL, 32 clients: invoice create with 10 line items, and transaction sync with
// 2 allocations; beside them, in alternating rounds of the same run, GET /billing/products (the
// REST validation floor: routing, auth, contract checks, one small query). Results go to
// bench/results/billing.{md,json}.

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CLIENTS = 32;

type Figures = { requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number; serverRssMiB: number };
type Scenario = {
  name: string;
  method: string;
  path: string;
  body: (client: number, n: number, round: number) => string | undefined;
  okStatus: number;
};

function request(agent: http.Agent, url: string, method: string, token: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function run(baseUrl: string, token: string, pid: number, scenario: Scenario, round: number): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies: number[] = [];
  let errors = 0;
  let rss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, rssMiB(pid));
  }, 500);
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const begun = performance.now();
        const status = await request(
          agent,
          `${baseUrl}${scenario.path}`,
          scenario.method,
          token,
          scenario.body(client, n, round),
        );
        latencies.push(performance.now() - begun);
        if (status !== scenario.okStatus) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] * 10) / 10;
  return {
    requestsPerSecond: Math.round((latencies.length - errors) / seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
    serverRssMiB: rss,
  };
}

const lineItems = Array.from({ length: 10 }, (_, i) => ({
  description: `Item ${i}`,
  product_id: i % 2 ? 'beans' : 'delivery',
  type: i < 8 ? 'payin' : 'payout',
  user: { external_id: `user-${i % 4}` },
  currency_code: 'USD',
  price: { unit_price: String(100 + i), quantity: 1 + (i % 3) },
}));

const scenarios: Scenario[] = [
  {
    name: 'GET /billing/products (REST floor)',
    method: 'GET',
    path: '/billing/products',
    body: () => undefined,
    okStatus: 200,
  },
  {
    name: 'POST /billing/invoices, 10 line items',
    method: 'POST',
    path: '/billing/invoices',
    okStatus: 201,
    body: (client, n, round) =>
      JSON.stringify({
        invoice_id: `inv-${round}-${client}-${n}`,
        line_items: lineItems,
        tags: [{ key: 'bench', value: 'yes' }],
      }),
  },
  {
    name: 'POST /billing/transactions, 2 allocations',
    method: 'POST',
    path: '/billing/transactions',
    okStatus: 201,
    body: (client, n, round) =>
      JSON.stringify({
        account: { external_id: `bank-${client % 4}` },
        amount: '300',
        currency: 'USD',
        external_id: `tx-${round}-${client}-${n}`,
        posted: '2026-11-05T10:00:00Z',
        allocations: [
          { amount: '100', invoice_id: `seed-${n % 50}`, type: 'invoice_payin', user: { external_id: 'user-0' } },
          { amount: '150', invoice_id: `seed-${(n + 7) % 50}`, type: 'invoice_payin', user: { external_id: 'user-1' } },
        ],
      }),
  },
];

async function main() {
  const postgres = await startEmbeddedPostgres({ dataDir: '', ephemeral: true, fast: false });
  const url = await ensureDatabase(postgres.url, 'tally_bench_billing');
  const tally = await startTally({
    DATABASE_URL: url,
    BOOTSTRAP_CLIENT_ID: 'bench',
    BOOTSTRAP_CLIENT_SECRET: 'bench-secret',
  });
  try {
    const token = await fetchToken(tally.baseUrl, 'bench', 'bench-secret');
    const agent = new http.Agent({ keepAlive: true });
    for (const code of ['beans', 'delivery']) {
      await request(
        agent,
        `${tally.baseUrl}/billing/products`,
        'POST',
        token,
        JSON.stringify({ code, description: code, paid_by_roles: [{ name: 'buyer' }] }),
      );
    }
    for (let i = 0; i < 50; i++) {
      const status = await request(
        agent,
        `${tally.baseUrl}/billing/invoices`,
        'POST',
        token,
        JSON.stringify({ invoice_id: `seed-${i}`, line_items: lineItems }),
      );
      if (status !== 201) throw new Error(`seeding invoice ${i} answered ${status}`);
    }
    agent.destroy();
    const samples = new Map<string, Figures[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const scenario of scenarios) {
        const figures = await run(tally.baseUrl, token, tally.child.pid!, scenario, round);
        samples.get(scenario.name)!.push(figures);
        console.log(
          `round ${round}  ${scenario.name.padEnd(44)} ${figures.requestsPerSecond} req/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  errors ${figures.errors}`,
        );
      }
    }
    write(samples);
  } finally {
    await stopTally(tally);
    await postgres.stop();
  }
}

function write(samples: Map<string, Figures[]>) {
  const best = (name: string) =>
    samples.get(name)!.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  const floor = best(scenarios[0].name).requestsPerSecond;
  const rows = scenarios.map((scenario) => ({
    name: scenario.name,
    ...best(scenario.name),
    runs: samples.get(scenario.name)!.map((f) => f.requestsPerSecond),
  }));
  const report = {
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    clients: CLIENTS,
    seconds: SECONDS,
    rounds: ROUNDS,
    note: 'load generator, server and PostgreSQL (fsync and synchronous_commit on) share the machine; best round of each case',
    results: rows.map((row) => ({ ...row, ratioToFloor: Math.round((row.requestsPerSecond / floor) * 100) / 100 })),
  };
  const dir = path.join(import.meta.dirname, 'results');
  fs.writeFileSync(path.join(dir, 'billing.json'), `${JSON.stringify(report, null, 2)}\n`);
  const lines = [
    '# Billing benchmark',
    '',
    `\`make bench-billing\`, ${report.date.slice(0, 10)}: ${CLIENTS} clients, ${SECONDS} s per run, ${ROUNDS} alternating rounds, ${report.cpus} cores shared by the load generator, the server and PostgreSQL (durable commits). Best round of each case.`,
    '',
    '| Case | req/s | p50 ms | p99 ms | errors | server RSS MiB | runs | ratio to floor |',
    '|---|---|---|---|---|---|---|---|',
    ...report.results.map(
      (r) =>
        `| ${r.name} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} | ${r.serverRssMiB} | ${r.runs.join(' / ')} | ${r.ratioToFloor} |`,
    ),
    '',
  ];
  fs.writeFileSync(path.join(dir, 'billing.md'), lines.join('\n'));
  console.log(lines.join('\n'));
}

await main();
