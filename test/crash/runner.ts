import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { connect, type Sql } from '../../src/db/sql.js';
import { seeded } from '../fuzz/random.js';
import { freePort } from '../support/ports.js';
import { spawnTally } from '../support/tallyProcess.js';
import { fetchToken } from '../support/token.js';
import { verify, type Check } from './verify.js';
import {
  ASSETS,
  EXTERNAL_ACCOUNT,
  INCOME,
  KINDS,
  LEDGER_IK,
  LIABILITIES,
  LINK_IK,
  LINKED,
  PRODUCT,
  runClient,
  type Api,
  type ClientStats,
  type Kind,
  type OpRecord,
} from './workload.js';

// The crash suite: a real Tally process on a durable PostgreSQL (fsync and synchronous commit on),
// clients writing through the API and retrying each write by its idempotency key until the answer
// is definite, the server killed with SIGKILL every few seconds and started again on the same
// port, PostgreSQL killed outright once (restarted by its supervisor, with crash recovery). Then
// the books are checked against what the clients were told. `make test-crash` runs it
// (bench/crash.ts); `make test` runs a short one (test/crash/crash.test.ts).

export type CrashOptions = {
  seconds: number;
  seed: number;
  clients: number;
  /** Mean pause between the server being ready again and the next kill (each pause 0.5x to 1.5x). */
  killEveryMs: number;
  /** The server must answer /readyz 200 within this long after each kill. */
  recoveryLimitMs: number;
  /** After the chaos phase, how long writes under way may still take to get a definite answer. */
  drainMs?: number;
  log?: (message: string) => void;
  /** Runs on the database just before the checks: lets a test damage the books to see the checks catch it. */
  beforeVerify?: (sql: Sql) => Promise<void>;
};

export type Recovery = { at: number; kind: 'server' | 'postgres'; ms: number | null; startAttempts: number };

export type CrashReport = {
  options: Omit<CrashOptions, 'log' | 'beforeVerify'>;
  startedAt: string;
  durationSeconds: number;
  postgres: { fsync: string; synchronousCommit: string; fullPageWrites: string; version: string };
  kills: { server: number; postgres: number };
  recoveries: Recovery[];
  recoveryMs: { max: number | null; median: number | null; postgres: number | null };
  unexpectedServerExits: string[];
  operations: Record<
    Kind,
    {
      attempted: number;
      acknowledged: number;
      refused: number;
      unresolved: number;
      acknowledgedOnReplay: number;
      attempts: number;
    }
  >;
  writes: { ledgerEntries: number; reconciled: number; invoices: number; billingTransactions: number };
  retries: Record<string, number>;
  /** The first answer body seen for each retried reason that had one. */
  retrySamples: Record<string, string>;
  refusals: string[];
  unresolved: string[];
  serverErrorLines: { count: number; samples: string[] };
  foldDrainedMs: number | null;
  finalShutdownExitCode: number | null;
  counts: Record<string, number>;
  adminCheckOutput: string;
  checks: Check[];
  pass: boolean;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** /readyz answers 200: the server is up and reaches its database. */
async function ready(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/readyz`, {
      headers: { connection: 'close' },
      signal: AbortSignal.timeout(2000),
    });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** The Tally server across its lives: one process at a time on one port, every generation's output scanned for errors. */
class ServerUnderTest {
  child: ChildProcess | undefined;
  generation = 0;
  readonly errorLines: string[] = [];
  errorCount = 0;
  readonly unexpectedExits: string[] = [];
  private killing = false;
  private tail = '';

  constructor(
    private readonly env: Record<string, string>,
    readonly port: number,
    private readonly log: (m: string) => void,
  ) {}

  get baseUrl() {
    return `http://127.0.0.1:${this.port}`;
  }

  alive() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts a new process; resolves with the ms until /readyz 200, or null when it did not get there in time. */
  async start(limitMs: number): Promise<{ ms: number | null; attempts: number }> {
    const startedAt = Date.now();
    for (let attempt = 1; attempt <= 5; attempt++) {
      this.spawn();
      const child = this.child!;
      while (Date.now() - startedAt < limitMs * 4) {
        if (await ready(this.baseUrl)) return { ms: Date.now() - startedAt, attempts: attempt };
        if (child.exitCode !== null || child.signalCode !== null) break;
        await sleep(50);
      }
      if (child.exitCode === null && child.signalCode === null) return { ms: null, attempts: attempt };
      this.log(
        `server generation ${this.generation} exited during start (${child.exitCode ?? child.signalCode}): ${this.tail.slice(-500)}`,
      );
    }
    return { ms: null, attempts: 5 };
  }

  private spawn() {
    this.generation++;
    const generation = this.generation;
    const child = spawnTally(this.env, this.port);
    this.child = child;
    this.tail = '';
    let pending = '';
    const scan = (chunk: Buffer) => {
      const text = chunk.toString();
      this.tail = (this.tail + text).slice(-8000);
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (/"level":"error"|TypeError|Unhandled|uncaught/i.test(line)) {
          this.errorCount++;
          if (this.errorLines.length < 20) this.errorLines.push(`gen ${generation}: ${line.slice(0, 400)}`);
        }
      }
    };
    child.stdout!.on('data', scan);
    child.stderr!.on('data', scan);
    child.once('exit', (code, signal) => {
      if (!this.killing && child === this.child) {
        this.unexpectedExits.push(
          `generation ${generation} exited by itself (${signal ?? `code ${code}`}): ${this.tail.slice(-600)}`,
        );
      }
    });
  }

  /** SIGKILL (a crash) or SIGTERM (a graceful stop); resolves with the exit code once the process is gone. */
  async stop(signal: NodeJS.Signals): Promise<number | null> {
    const child = this.child;
    if (!child) return null;
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    this.killing = true;
    try {
      return await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
        child.kill(signal);
      });
    } finally {
      this.killing = false;
    }
  }
}

/** Every process of the PostgreSQL cluster killed at once, as an OOM killer or a lost host would. */
function killPostgres(dataDir: string): number[] {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let children: number[] = [];
  try {
    children = fs
      .readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no /proc: the postmaster alone; its children notice and exit
  }
  const killed: number[] = [];
  for (const pid of [postmaster, ...children]) {
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}

async function graphqlSetup(api: Api, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${api.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  const answer = body.data && (Object.values(body.data)[0] as { __typename?: string } | undefined);
  if (!answer?.__typename?.endsWith('Result')) throw new Error(`crash setup failed: ${JSON.stringify(body)}`);
  return answer;
}

/** The ledger, its accounts (strong and eventual), the bank link with its linked account, and the product. */
async function seedWorld(api: Api) {
  const strong = '{ ownBalanceUpdates: strong, totalBalanceUpdates: strong }';
  await graphqlSetup(api, `mutation { createLedger(ik: "${LEDGER_IK}", ledger: { name: "Crash" }) { __typename } }`);
  const link = await graphqlSetup(
    api,
    `mutation { createCustomLink(ik: "${LINK_IK}", name: "Crash bank") { __typename ... on CreateCustomLinkResult { link { id } } } }`,
  );
  const linkId: string = link.link.id;
  const accounts = await graphqlSetup(
    api,
    `mutation($link: ID!) { syncCustomAccounts(link: { id: $link }, accounts: [{ externalId: "${EXTERNAL_ACCOUNT}", name: "Operating" }]) {
    __typename ... on SyncCustomAccountsResult { accounts { id } } } }`,
    { link: linkId },
  );
  const externalAccountId: string = accounts.accounts[0].id;
  const plain = [
    ...ASSETS.map((ik, i) => ({ ik, type: 'asset', strong: i < 2 })),
    ...LIABILITIES.map((ik, i) => ({ ik, type: 'liability', strong: i < 2 })),
  ];
  await graphqlSetup(
    api,
    `mutation($link: ID!) { createLedgerAccounts(ledger: { ik: "${LEDGER_IK}" }, ledgerAccounts: [
    ${plain.map((a) => `{ ik: "${a.ik}", name: "${a.ik}", type: ${a.type}${a.strong ? `, consistencyConfig: ${strong}` : ''} }`).join(',\n')},
    { ik: "${LINKED}", name: "Bank", type: asset, linkedAccount: { linkId: $link, externalId: "${EXTERNAL_ACCOUNT}" } },
    { ik: "${INCOME}", name: "Sales", type: income }]) { __typename ... on BadRequestError { code message } } }`,
    { link: linkId },
  );
  const product = await fetch(`${api.baseUrl}/billing/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      code: PRODUCT,
      description: 'Crash goods',
      paid_by_roles: [{ name: 'buyer' }],
      paid_to_roles: [{ name: 'seller' }],
    }),
  });
  if (product.status !== 201)
    throw new Error(`crash setup: product answered ${product.status} ${await product.text()}`);
  return { linkId, externalAccountId };
}

const median = (values: number[]) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

export async function runCrash(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const drainMs = options.drainMs ?? 60_000;
  const started = Date.now();
  const postgresLog: string[] = [];
  let postgres: EmbeddedPostgres | undefined;
  let server: ServerUnderTest | undefined;
  let sql: Sql | undefined;
  // An interrupted run (Ctrl-C) still leaves no process and no folder behind: the embedded
  // PostgreSQL's supervisor stops it at exit, and this kills the server and removes the data.
  const onExit = () => {
    if (server?.child && server.alive()) server.child.kill('SIGKILL');
    if (postgres) fs.rmSync(path.dirname(postgres.dataDir), { recursive: true, force: true });
  };
  process.once('exit', onExit);
  try {
    // Durable: fsync, synchronous_commit and full_page_writes at PostgreSQL's defaults (on).
    postgres = await startEmbeddedPostgres({
      dataDir: '',
      ephemeral: true,
      fast: false,
      log: (m) => {
        postgresLog.push(m);
        log(`postgres: ${m}`);
      },
    });
    const databaseUrl = await ensureDatabase(postgres.url, 'tally');
    sql = connect(databaseUrl, { max: 2 });
    const [settings] = await sql<
      { fsync: string; synchronousCommit: string; fullPageWrites: string; version: string }[]
    >`
      select current_setting('fsync') as fsync, current_setting('synchronous_commit') as "synchronousCommit",
             current_setting('full_page_writes') as "fullPageWrites", current_setting('server_version') as version`;

    server = new ServerUnderTest(
      {
        DATABASE_URL: databaseUrl,
        BOOTSTRAP_CLIENT_ID: 'crash',
        BOOTSTRAP_CLIENT_SECRET: 'crash-secret',
        DATABASE_CONNECT_TIMEOUT_SECONDS: '2',
        LOG_LEVEL: 'warn',
      },
      await freePort(),
      log,
    );
    const first = await server.start(60_000);
    if (first.ms === null) throw new Error('the server did not become ready');
    const api: Api = { baseUrl: server.baseUrl, token: await fetchToken(server.baseUrl, 'crash', 'crash-secret') };
    const world = await seedWorld(api);
    log(`world seeded; chaos for ${options.seconds} s with ${options.clients} clients, seed ${options.seed}`);

    // ---- Chaos: clients write while the server is killed and restarted, and PostgreSQL once ----
    const chaosStart = Date.now();
    const chaosEnd = chaosStart + options.seconds * 1000;
    const deadline = chaosEnd + drainMs;
    const stats: ClientStats = { retries: {} };
    const clients = Array.from({ length: options.clients }, (_, client) =>
      runClient({
        api,
        client,
        seed: options.seed,
        linkId: world.linkId,
        externalAccountId: world.externalAccountId,
        startMore: () => Date.now() < chaosEnd,
        deadline,
        stats,
      }),
    );

    const schedule = seeded((options.seed ^ 0x5eed_c0de) >>> 0);
    const pgKillAt = chaosStart + options.seconds * 1000 * (0.35 + 0.3 * schedule.next());
    const recoveries: Recovery[] = [];
    const kills = { server: 0, postgres: 0 };
    const live = server;
    const watchUntil = async (time: number) => {
      while (Date.now() < time) {
        if (!live.alive()) {
          // It died by itself: that is a finding (recorded by the exit handler); start it again.
          const restart = await live.start(options.recoveryLimitMs);
          recoveries.push({
            at: Date.now() - chaosStart,
            kind: 'server',
            ms: restart.ms,
            startAttempts: restart.attempts,
          });
        }
        await sleep(100);
      }
    };
    for (;;) {
      const pause = options.killEveryMs * (0.5 + schedule.next());
      const pgPending = kills.postgres === 0;
      const next = Math.min(Date.now() + pause, pgPending ? Math.max(pgKillAt, Date.now()) : Infinity);
      const windowLeft = next < chaosEnd;
      if (!windowLeft && !pgPending) break;
      if (windowLeft) await watchUntil(next);
      // A slow restart on a loaded machine may use up the window: PostgreSQL's one kill is owed all the same.
      if (pgPending && (!windowLeft || Date.now() >= pgKillAt)) {
        const at = Date.now();
        const restartedBefore = postgresLog.filter((m) => m.includes('embedded PostgreSQL restarted')).length;
        const pids = killPostgres(postgres.dataDir);
        kills.postgres++;
        log(`killed PostgreSQL (${pids.length} processes) at ${at - chaosStart} ms`);
        let ms: number | null = null;
        while (Date.now() - at < options.recoveryLimitMs * 4) {
          const restarted =
            postgresLog.filter((m) => m.includes('embedded PostgreSQL restarted')).length > restartedBefore;
          if (restarted && (await ready(live.baseUrl))) {
            ms = Date.now() - at;
            break;
          }
          await sleep(50);
        }
        recoveries.push({ at: at - chaosStart, kind: 'postgres', ms, startAttempts: 1 });
        log(`server ready after the PostgreSQL kill in ${ms} ms`);
        continue;
      }
      const at = Date.now();
      await live.stop('SIGKILL');
      kills.server++;
      const restart = await live.start(options.recoveryLimitMs);
      const ms = restart.ms === null ? null : Date.now() - at;
      recoveries.push({ at: at - chaosStart, kind: 'server', ms, startAttempts: restart.attempts });
      log(`server kill ${kills.server} at ${at - chaosStart} ms: ready again in ${ms} ms`);
    }
    await watchUntil(chaosEnd);
    log('chaos over; waiting for every write to get a definite answer');
    const perClient = await Promise.all(clients);
    const records = perClient.flat();
    if (!live.alive() || !(await ready(live.baseUrl))) {
      const restart = await live.start(options.recoveryLimitMs);
      recoveries.push({ at: Date.now() - chaosStart, kind: 'server', ms: restart.ms, startAttempts: restart.attempts });
    }

    // ---- The fold drains the eventual balance updates ----
    const foldStart = Date.now();
    let foldDrainedMs: number | null = null;
    while (Date.now() - foldStart < 60_000) {
      const [queue] = await sql<{ n: number }[]>`select count(*)::int as n from ledger_balance_queue`;
      if (queue.n === 0) {
        foldDrainedMs = Date.now() - foldStart;
        break;
      }
      await sleep(100);
    }

    await options.beforeVerify?.(sql);
    log(`verifying ${records.length} writes`);
    const verification = await verify({ sql, api, databaseUrl, records });
    const finalShutdownExitCode = await live.stop('SIGTERM');

    // ---- The report ----
    const operations = Object.fromEntries(
      KINDS.map((kind) => {
        const of = records.filter((r) => r.op.kind === kind);
        return [
          kind,
          {
            attempted: of.length,
            acknowledged: of.filter((r) => r.status === 'acknowledged').length,
            refused: of.filter((r) => r.status === 'refused').length,
            unresolved: of.filter((r) => r.status === 'unresolved').length,
            acknowledgedOnReplay: of.filter((r) => r.status === 'acknowledged' && r.replayed).length,
            attempts: of.reduce((sum, r) => sum + r.attempts, 0),
          },
        ];
      }),
    ) as CrashReport['operations'];
    const serverRecoveries = recoveries.filter((r) => r.kind === 'server' && r.ms !== null).map((r) => r.ms!);
    const pgRecovery = recoveries.find((r) => r.kind === 'postgres')?.ms ?? null;
    const describe = (r: OpRecord) => `client ${r.client} ${r.op.kind} ${keyOf(r)}`;
    const refusals = records.filter((r) => r.status === 'refused').map((r) => `${describe(r)}: ${r.refusal}`);
    const unresolved = records.filter((r) => r.status === 'unresolved').map(describe);
    const minServerKills = Math.max(1, Math.floor(options.seconds / 12));
    const internalErrors = Object.entries(stats.retries).filter(([reason]) =>
      /internal_error|^(graphql )?500\b/.test(reason),
    );

    const checks: Check[] = [
      {
        id: 'definite',
        name: 'every write got a definite answer, and every answer was success (the clients send only valid writes)',
        pass: refusals.length === 0 && unresolved.length === 0,
        detail: `${records.length} writes: ${records.length - refusals.length - unresolved.length} acknowledged, ${refusals.length} refused, ${unresolved.length} unresolved`,
        problems: [...refusals, ...unresolved.map((u) => `${u}: no definite answer by the deadline`)].slice(0, 20),
      },
      ...verification.checks,
      {
        id: 'recovery',
        name: `the server ready (/readyz 200) within ${options.recoveryLimitMs} ms of every kill, and never dying by itself`,
        pass:
          recoveries.every((r) => r.ms !== null && r.ms <= options.recoveryLimitMs) &&
          live.unexpectedExits.length === 0,
        detail: `${recoveries.length} recoveries: max ${Math.max(0, ...recoveries.map((r) => r.ms ?? Infinity))} ms`,
        problems: [
          ...recoveries
            .filter((r) => r.ms === null || r.ms > options.recoveryLimitMs)
            .map((r) => `${r.kind} kill at ${r.at} ms: ready after ${r.ms ?? 'never'} ms`),
          ...live.unexpectedExits,
        ],
      },
      {
        id: 'kills',
        name: `PostgreSQL killed once and recovered; the server killed at least ${minServerKills} time(s) (one per 12 s of chaos)`,
        pass: kills.postgres === 1 && pgRecovery !== null && kills.server >= minServerKills,
        detail: `PostgreSQL ${kills.postgres}, server ${kills.server}`,
        problems: [],
      },
      {
        id: 'typed-failures',
        name: 'no internal error answered (every failure typed: 503 service_unavailable, transport errors while down)',
        pass: internalErrors.length === 0,
        detail:
          internalErrors.length === 0 ? 'none' : internalErrors.map(([reason, n]) => `${reason}: ${n}`).join(', '),
        problems: internalErrors.map(([reason, n]) => `${reason}: ${n}`),
      },
      {
        id: 'fold-and-shutdown',
        name: 'the fold drained the eventual balance updates, and the server stopped cleanly at the end',
        pass: foldDrainedMs !== null && finalShutdownExitCode === 0,
        detail: `queue empty after ${foldDrainedMs} ms; SIGTERM exit code ${finalShutdownExitCode}`,
        problems: [],
      },
    ];

    return {
      options: {
        seconds: options.seconds,
        seed: options.seed,
        clients: options.clients,
        killEveryMs: options.killEveryMs,
        recoveryLimitMs: options.recoveryLimitMs,
        drainMs,
      },
      startedAt: new Date(started).toISOString(),
      durationSeconds: Math.round((Date.now() - started) / 100) / 10,
      postgres: settings,
      kills,
      recoveries,
      recoveryMs: {
        max: serverRecoveries.length ? Math.max(...serverRecoveries) : null,
        median: median(serverRecoveries),
        postgres: pgRecovery,
      },
      unexpectedServerExits: live.unexpectedExits,
      operations,
      writes: {
        ledgerEntries: records
          .filter((r) => r.status === 'acknowledged')
          .reduce((n, r) => n + (r.op.kind === 'entry' ? 1 : r.op.kind === 'batch' ? r.op.entries.length : 0), 0),
        reconciled: operations.reconcile.acknowledged,
        invoices: operations.invoice.acknowledged,
        billingTransactions: operations.transaction.acknowledged,
      },
      retries: Object.fromEntries(Object.entries(stats.retries).sort((a, b) => b[1] - a[1])),
      retrySamples: stats.samples ?? {},
      refusals: refusals.slice(0, 50),
      unresolved: unresolved.slice(0, 50),
      serverErrorLines: { count: live.errorCount, samples: live.errorLines },
      foldDrainedMs,
      finalShutdownExitCode,
      counts: verification.counts,
      adminCheckOutput: verification.adminCheckOutput,
      checks,
      pass: checks.every((c) => c.pass),
    };
  } finally {
    process.removeListener('exit', onExit);
    if (server?.alive()) await server.stop('SIGKILL');
    await sql?.end({ timeout: 5 }).catch(() => {});
    await postgres?.stop();
  }
}

function keyOf(record: OpRecord): string {
  const { op } = record;
  switch (op.kind) {
    case 'entry':
      return op.entry.ik;
    case 'batch':
      return op.entries.map((e) => e.ik).join('+');
    case 'reconcile':
      return op.txExternalId;
    case 'invoice':
      return op.invoiceId;
    case 'transaction':
      return op.externalId;
  }
}

const sample = (body: string | undefined) =>
  body === undefined ? '' : `\`${body.replace(/[`|]/g, "'").slice(0, 160)}\``;

/** The report as Markdown, for bench/results/crash.md. */
export function crashMarkdown(report: CrashReport): string {
  const o = report.options;
  const opRows = KINDS.map((kind) => {
    const s = report.operations[kind];
    return `| ${kind} | ${s.attempted} | ${s.acknowledged} | ${s.acknowledgedOnReplay} | ${s.refused} | ${s.unresolved} | ${s.attempts} |`;
  });
  const totals = KINDS.reduce(
    (t, kind) => {
      const s = report.operations[kind];
      return {
        attempted: t.attempted + s.attempted,
        acknowledged: t.acknowledged + s.acknowledged,
        replay: t.replay + s.acknowledgedOnReplay,
        refused: t.refused + s.refused,
        unresolved: t.unresolved + s.unresolved,
        attempts: t.attempts + s.attempts,
      };
    },
    { attempted: 0, acknowledged: 0, replay: 0, refused: 0, unresolved: 0, attempts: 0 },
  );
  const retries = Object.entries(report.retries);
  return [
    '# Crash run (`make test-crash`)',
    '',
    `Run ${report.startedAt}: ${o.seconds} s of chaos, ${o.clients} clients, seed ${o.seed}, a server kill every ${o.killEveryMs} ms on average ` +
      `(0.5x to 1.5x), ${report.durationSeconds} s in all. PostgreSQL ${report.postgres.version} with fsync=${report.postgres.fsync}, ` +
      `synchronous_commit=${report.postgres.synchronousCommit}, full_page_writes=${report.postgres.fullPageWrites}.`,
    '',
    `${report.pass ? 'PASS' : 'FAIL'}: ${report.checks.filter((c) => c.pass).length} of ${report.checks.length} checks hold.`,
    '',
    ...report.checks.flatMap((c) => [
      `- ${c.pass ? 'PASS' : 'FAIL'}: ${c.name} (${c.detail})`,
      ...c.problems.map((p) => `  - ${p}`),
    ]),
    '',
    '## Kills and recovery',
    '',
    `Server killed with SIGKILL ${report.kills.server} times and started again on the same port; PostgreSQL killed ${report.kills.postgres} time(s) ` +
      '(SIGKILL to the postmaster and every backend at once; restarted by its supervisor, crash recovery from the WAL).',
    '',
    `Server kill to /readyz 200 of the new process: median ${report.recoveryMs.median} ms, max ${report.recoveryMs.max} ms. ` +
      `PostgreSQL kill to /readyz 200 (same server process): ${report.recoveryMs.postgres} ms. Unexpected server exits: ${report.unexpectedServerExits.length}.`,
    '',
    '| At (ms into the chaos) | Killed | Ready again after (ms) |',
    '|---:|---|---:|',
    ...report.recoveries.map((r) => `| ${r.at} | ${r.kind} | ${r.ms ?? 'never'} |`),
    '',
    '## Writes',
    '',
    'Each write is sent again with the same idempotency key and body (ledger `ik`, reconciled transaction, invoice id, ' +
      'transaction `external_id`) after a transport error, a 5xx, a 429 or a `retryable` error, until the answer is definite. ' +
      '"On replay": the definite answer said the server already had the write (an earlier attempt committed, its answer lost).',
    '',
    '| Kind | Attempted | Acknowledged | On replay | Refused | Unresolved | Requests |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...opRows,
    `| all | ${totals.attempted} | ${totals.acknowledged} | ${totals.replay} | ${totals.refused} | ${totals.unresolved} | ${totals.attempts} |`,
    '',
    `Acknowledged: ${report.writes.ledgerEntries} ledger entries (single and batched), ${report.writes.reconciled} reconciliations, ` +
      `${report.writes.invoices} invoices, ${report.writes.billingTransactions} billing transactions. In the database: ` +
      `${report.counts.entriesInLedger} entries, ${report.counts.externalTxs} bank-feed transactions, ${report.counts.invoices} invoices, ` +
      `${report.counts.billingTransactions} billing transactions.`,
    '',
    '| Retried after | Times | First answer body |',
    '|---|---:|---|',
    ...(retries.length
      ? retries.map(([reason, n]) => `| ${reason} | ${n} | ${sample(report.retrySamples[reason])} |`)
      : ['| (none) | 0 | |']),
    '',
    `Server log lines at error level (all generations): ${report.serverErrorLines.count}.`,
    ...report.serverErrorLines.samples.slice(0, 5).map((line) => `- \`${line.replace(/`/g, "'")}\``),
    '',
    `Invariant checker: \`${report.adminCheckOutput}\`.`,
    '',
    "The seed fixes every client's sequence of writes (kinds, keys, accounts, amounts) and the pauses between kills; " +
      'where each kill lands among the writes depends on timing, so two runs with one seed write the same prefixes, not the same counts.',
    '',
  ].join('\n');
}
