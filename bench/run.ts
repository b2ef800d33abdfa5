import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { createClient, createWorkspace } from '../src/db/provision.js';
import { tokenSigningKey } from '../src/db/workspaces.js';
import { silentLogger } from '../src/observability/log.js';
import { fetchToken } from '../test/support/token.js';
import { send } from './support/send.js';

// Throughput of the request paths this version serves, on one machine, in one run: absolute
// figures move with the machine's load, so each case is compared with a baseline measured in
// the same run, alternating rounds. Results go to bench/results/latest.{json,md}.

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

// The document the official SDK sends for getLedger: realistic size and shape.
const GET_LEDGER = `query getLedger($ik: SafeString!) {
  ledger(ledger: { ik: $ik }) { id ik name created balanceUTCOffset }
}`;

type Target = { name: string; method: string; url: string; headers: Record<string, string>; body?: string };

async function main() {
  const database = await openDatabase({ ephemeral: true, dataDir: '', poolMax: 10, log: () => {} });
  const { sql } = database;
  const signingKey = await tokenSigningKey(sql);
  const cached = await listen(await createApp({ sql, signingKey, tokenTtlSeconds: 3600, log: silentLogger }));
  const uncached = await listen(
    await createApp({ sql, signingKey, tokenTtlSeconds: 3600, log: silentLogger, documentCacheSize: 0 }),
  );

  // BENCH_BASELINE names another checkout (a git worktree of an earlier commit): its app is served
  // beside this one from the same database, and the REST read is measured on both in each round.
  const baseline = process.env.BENCH_BASELINE
    ? await listen(
        await (
          (await import(pathToFileURL(path.join(path.resolve(process.env.BENCH_BASELINE), 'src/app.ts')).href)) as {
            createApp: typeof createApp;
          }
        ).createApp({ sql, signingKey, tokenTtlSeconds: 3600, log: silentLogger }),
      )
    : undefined;

  const workspaceId = await createWorkspace(sql, 'Bench');
  const client = await createClient(sql, workspaceId);
  const token = await fetchToken(cached.url, client.clientId, client.clientSecret);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await post(
    `${cached.url}/graphql`,
    auth,
    JSON.stringify({
      query: 'mutation { createLedger(ik: "bench", ledger: { name: "Bench" }) { __typename } }',
    }),
  );
  await post(
    `${cached.url}/billing/products`,
    auth,
    JSON.stringify({ code: 'bench-coffee', description: 'Coffee', paid_by_roles: [{ name: 'buyer' }] }),
  );
  const graphqlBody = JSON.stringify({ query: GET_LEDGER, variables: { ik: 'bench' }, operationName: 'getLedger' });

  const targets: Target[] = [
    { name: 'GET /healthz (Koa floor)', method: 'GET', url: `${cached.url}/healthz`, headers: {} },
    {
      name: 'GraphQL getLedger, document cache on',
      method: 'POST',
      url: `${cached.url}/graphql`,
      headers: auth,
      body: graphqlBody,
    },
    {
      name: 'GraphQL getLedger, document cache off',
      method: 'POST',
      url: `${uncached.url}/graphql`,
      headers: auth,
      body: graphqlBody,
    },
    {
      name: 'REST GET /billing/products (openapi-backend)',
      method: 'GET',
      url: `${cached.url}/billing/products`,
      headers: auth,
    },
    {
      name: 'REST GET /billing/products/{code}',
      method: 'GET',
      url: `${cached.url}/billing/products/bench-coffee`,
      headers: auth,
    },
    ...(baseline
      ? [
          {
            name: 'REST GET /billing/products/{code}, BENCH_BASELINE checkout',
            method: 'GET',
            url: `${baseline.url}/billing/products/bench-coffee`,
            headers: auth,
          },
        ]
      : []),
  ];

  const samples = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const target of targets) {
      const rate = await measure(target);
      samples.get(target.name)!.push(rate);
      process.stdout.write(`round ${round}  ${target.name.padEnd(48)} ${rate.toFixed(0)} req/s\n`);
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const results = targets.map((t) => ({
    name: t.name,
    median_rps: Math.round(median(samples.get(t.name)!)),
    runs: samples.get(t.name)!.map(Math.round),
  }));
  const cacheRatio = median(samples.get(targets[1].name)!) / median(samples.get(targets[2].name)!);
  const ratioOf = (a: string, b: string) => Number((median(samples.get(a)!) / median(samples.get(b)!)).toFixed(2));
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    settings: {
      concurrency: CONCURRENCY,
      seconds: SECONDS,
      rounds: ROUNDS,
      note: 'load generator, server and PostgreSQL share the machine',
    },
    results,
    ratios: {
      graphql_document_cache_speedup: Number(cacheRatio.toFixed(2)),
      rest_read_over_graphql_read: ratioOf('REST GET /billing/products/{code}', 'GraphQL getLedger, document cache on'),
      rest_read_over_koa_floor: ratioOf('REST GET /billing/products/{code}', 'GET /healthz (Koa floor)'),
      ...(baseline
        ? {
            rest_read_over_baseline: ratioOf(
              'REST GET /billing/products/{code}',
              'REST GET /billing/products/{code}, BENCH_BASELINE checkout',
            ),
          }
        : {}),
    },
  };
  const dir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'latest.md'), markdown(report));
  process.stdout.write(`\nGraphQL document cache speed-up: ${cacheRatio.toFixed(2)}x\n`);

  cached.server.close();
  uncached.server.close();
  baseline?.server.close();
  await database.close();
}

/** Completed requests per second, keeping CONCURRENCY requests in flight for SECONDS. */
async function measure(target: Target): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const deadline = performance.now() + SECONDS * 1000;
  let completed = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const status = await send(agent, target);
      if (status !== 200) throw new Error(`${target.name} answered ${status}`);
      completed++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return completed / ((performance.now() - started) / 1000);
}

async function listen(app: { listen: (port: number, host: string) => http.Server }) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const response = await fetch(url, { method: 'POST', headers, body });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

function markdown(report: {
  date: string;
  machine: object;
  settings: object;
  results: { name: string; median_rps: number; runs: number[] }[];
  ratios: object;
}): string {
  return [
    '# Benchmark results (`make bench`)',
    '',
    `Run ${report.date} on ${JSON.stringify(report.machine)}.`,
    `Settings: ${JSON.stringify(report.settings)}.`,
    '',
    '| Case | Median req/s | Runs |',
    '|---|---:|---|',
    ...report.results.map((r) => `| ${r.name} | ${r.median_rps} | ${r.runs.join(' / ')} |`),
    '',
    `Ratios (same run): ${JSON.stringify(report.ratios)}`,
    '',
  ].join('\n');
}

await main();
