import fs from 'node:fs';
import http from 'node:http';
import { buildLedgerSchema } from '../../src/ledger/graphql/executableSchema.js';
import { connect } from '../../src/db/sql.js';
import { startTally, stopTally } from '../support/tallyProcess.js';
import { billingCaseGenerator } from './billingCases.js';
import { dashboardCaseGenerator } from './dashboardCases.js';
import { balanceCaseGenerator } from './balanceCases.js';
import { linkCaseGenerator } from './linkCases.js';
import { ledgerCaseGenerator } from './ledgerCases.js';
import { fetchToken } from '../support/token.js';
import { problemsOf, type Answer } from './checks.js';
import { graphqlCaseGenerator } from './graphqlCases.js';
import { seeded } from './random.js';
import { restCaseGenerator, type HttpCase } from './restCases.js';
import { sandboxCaseGenerator } from './sandboxCases.js';
import { databaseFingerprint, drainBalanceQueue, seedWorld } from './world.js';

// Runs the fuzz suite against a real Tally process: seeds a world through the API, fingerprints
// the database, sends the generated bad requests, then checks every answer, the fingerprint, the
// server's health and its memory. Case i of seed s is always the same request (FUZZ_SEED, FUZZ_CASE).

export type FuzzOptions = {
  databaseUrl: string;
  requests: number;
  seed: number;
  concurrency: number;
  onlyCase?: number;
};

export type Failure = {
  case: number;
  kind: string;
  operation: string;
  method: string;
  path: string;
  body?: string;
  status: number;
  answer: string;
  problems: string[];
};

export type FuzzReport = {
  seed: number;
  requests: number;
  concurrency: number;
  durationSeconds: number;
  byKind: Record<string, number>;
  byOperation: Record<string, number>;
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
  rssMiB: { start: number; end: number; max: number };
  healthyAfter: boolean;
  databaseUnchanged: boolean;
  listingsUnchanged: boolean;
  coverage: {
    restOperations: number;
    restOperationsHit: number;
    graphqlFields: number;
    graphqlFieldsHit: number;
    sandboxOperations: number;
    sandboxOperationsHit: number;
  };
  failures: Failure[];
  /** What the server logged at warn or error level (the first few lines): why a request failed. */
  serverTrouble: string[];
};

const RSS_SAMPLE_EVERY = 250;
const FUZZ_ADMIN_TOKEN = 'fuzz-admin-token-0123456789';

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const env: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    BOOTSTRAP_CLIENT_ID: 'fuzz',
    BOOTSTRAP_CLIENT_SECRET: 'fuzz-secret',
    // The sandbox admin API is fuzzed too; its hooks (fault headers) sit in the other APIs' paths.
    TALLY_SANDBOX: '1',
    TALLY_ADMIN_TOKEN: FUZZ_ADMIN_TOKEN,
  };
  if (process.env.FUZZ_SERVER_NODE_OPTIONS) env.NODE_OPTIONS = process.env.FUZZ_SERVER_NODE_OPTIONS;
  const tally = await startTally(env);
  const sql = connect(options.databaseUrl, { max: 2 });
  try {
    const token = await fetchToken(tally.baseUrl, 'fuzz', 'fuzz-secret');
    const world = await seedWorld(tally.baseUrl, token);
    const rest = restCaseGenerator({ token, productCodes: world.productCodes });
    const graphql = graphqlCaseGenerator(buildLedgerSchema(), { token, cursors: world.cursors });
    const ledger = ledgerCaseGenerator(token);
    const billing = billingCaseGenerator(token, world.billing);
    const balances = balanceCaseGenerator(token);
    const links = linkCaseGenerator(token, world.links);
    const dashboard = dashboardCaseGenerator();
    const sandbox = sandboxCaseGenerator({
      adminToken: FUZZ_ADMIN_TOKEN,
      clientToken: token,
      workspaceId: world.workspaceId,
    });
    const covering = rest.operationIds.length + graphql.fields.length;
    const coveringAll = covering + sandbox.operationIds.length;
    const caseAt = (index: number): HttpCase => {
      const random = seeded(options.seed * 1_000_003 + index);
      if (index < rest.operationIds.length) return rest.cover(index, random);
      if (index < covering) return graphql.cover(index - rest.operationIds.length, random);
      if (index < coveringAll) return sandbox.cover(index - covering, random);
      const pick = random.int(0, 16);
      return pick < 4
        ? rest.next(random)
        : pick < 7
          ? graphql.next(random)
          : pick < 9
            ? ledger.next(random)
            : pick < 11
              ? billing.next(random)
              : pick < 13
                ? balances.next(random)
                : pick < 15
                  ? links.next(random)
                  : pick < 16
                    ? dashboard.next(random)
                    : sandbox.next(random);
    };

    await drainBalanceQueue(sql);
    const before = { database: await databaseFingerprint(sql), listings: await world.listings() };
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
    const rss: number[] = [];
    const latencies: number[] = [];
    const report = emptyReport(options);
    const started = performance.now();
    const indexes =
      options.onlyCase !== undefined ? [options.onlyCase] : Array.from({ length: options.requests }, (_, i) => i);
    let cursor = 0;

    const exited = () => tally.child.exitCode !== null || tally.child.signalCode !== null;
    const worker = async () => {
      while (cursor < indexes.length && !exited()) {
        const index = indexes[cursor++];
        const request = caseAt(index);
        const sentAt = performance.now();
        const answer = await send(agent, tally.baseUrl, request);
        latencies.push(performance.now() - sentAt);
        count(report, request, answer);
        const problems = problemsOf(answer, { operation: request.operation, path: request.path });
        if (problems.length > 0) {
          report.failures.push({
            case: index,
            kind: request.kind,
            operation: request.operation,
            method: request.method,
            path: request.path.slice(0, 300),
            body: request.body?.slice(0, 300),
            status: answer.status,
            answer: answer.text.slice(0, 300),
            problems,
          });
        }
        if (latencies.length % RSS_SAMPLE_EVERY === 1) rss.push(rssMiB(tally.child.pid!));
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    agent.destroy();
    if (exited()) {
      report.failures.push({
        case: indexes[cursor - 1],
        kind: 'server',
        operation: '-',
        method: '-',
        path: '-',
        status: 0,
        answer: tally.output().slice(-300),
        problems: [`the server exited (${tally.child.signalCode ?? tally.child.exitCode})`],
      });
    }
    rss.push(rssMiB(tally.child.pid!));
    report.serverTrouble = tally
      .output()
      .split('\n')
      .filter((line) => /"level":"(warn|error)"/.test(line))
      .slice(0, 10)
      .map((line) => line.slice(0, 600));

    report.durationSeconds = Number(((performance.now() - started) / 1000).toFixed(1));
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      Number((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0).toFixed(1));
    report.latencyMs = { p50: at(0.5), p99: at(0.99), max: Number((latencies.at(-1) ?? 0).toFixed(1)) };
    // The first sample follows a few hundred warm-up requests' worth of module loading and JIT.
    const baseline = rss[Math.min(1, rss.length - 1)];
    report.rssMiB = { start: baseline, end: rss.at(-1)!, max: Math.max(...rss) };
    report.healthyAfter =
      !exited() &&
      (await fetch(`${tally.baseUrl}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ));
    report.databaseUnchanged = (await databaseFingerprint(sql)) === before.database;
    report.listingsUnchanged =
      !exited() && JSON.stringify(await world.listings().catch(() => undefined)) === JSON.stringify(before.listings);
    report.coverage = {
      restOperations: rest.operationIds.length,
      restOperationsHit: rest.operationIds.filter((id) => report.byOperation[id]).length,
      graphqlFields: graphql.fields.length,
      graphqlFieldsHit: graphql.fields.filter((field) => report.byOperation[field.split('.')[1]]).length,
      sandboxOperations: sandbox.operationIds.length,
      sandboxOperationsHit: sandbox.operationIds.filter((id) => report.byOperation[id]).length,
    };
    return report;
  } finally {
    await sql.end();
    await stopTally(tally);
  }
}

function emptyReport(options: FuzzOptions): FuzzReport {
  return {
    seed: options.seed,
    requests: options.requests,
    concurrency: options.concurrency,
    durationSeconds: 0,
    byKind: {},
    byOperation: {},
    byStatus: {},
    byCode: {},
    latencyMs: { p50: 0, p99: 0, max: 0 },
    rssMiB: { start: 0, end: 0, max: 0 },
    healthyAfter: false,
    databaseUnchanged: false,
    listingsUnchanged: false,
    coverage: {
      restOperations: 0,
      restOperationsHit: 0,
      graphqlFields: 0,
      graphqlFieldsHit: 0,
      sandboxOperations: 0,
      sandboxOperationsHit: 0,
    },
    failures: [],
    serverTrouble: [],
  };
}

function count(report: FuzzReport, request: HttpCase, answer: Answer) {
  const bump = (table: Record<string, number>, key: string) => (table[key] = (table[key] ?? 0) + 1);
  bump(report.byKind, request.kind);
  bump(report.byOperation, request.operation);
  bump(report.byStatus, String(answer.status));
  for (const code of answer.text.matchAll(/"code":"([a-z_]+)"/g)) bump(report.byCode, code[1]);
}

function send(agent: http.Agent, baseUrl: string, request: HttpCase): Promise<Answer> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = Object.fromEntries(
      Object.entries(request.headers).filter(([, value]) => value !== ''),
    );
    // Node's client sends a GET or DELETE body without framing; say its length, as real clients do.
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const req = http.request(`${baseUrl}${request.path}`, { method: request.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', (error) => resolve({ status: 0, contentType: '', text: `connection error: ${error.message}` }));
    req.end(request.body);
  });
}

/** Resident memory of a live process; infinite once it is gone (so the memory check fails too). */
function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
