import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { connect } from '../src/db/sql.js';
import { ATTACKS } from '../test/support/graphqlAttacks.js';
import { freePort } from '../test/support/ports.js';
import { fetchToken } from '../test/support/token.js';
import { rssMiB } from './support/processStats.js';

// How long one hostile GraphQL document keeps a server busy, and what it does to its memory:
// each attack is sent once to a fresh server process of this checkout and, with BENCH_BASELINE,
// of another (the commit before a change). A server still busy after TIMEOUT_MS is killed.

const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 20_000);

type Server = { child: ChildProcess; url: string };

async function startServer(root: string, databaseUrl: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx/esm', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      BOOTSTRAP_CLIENT_ID: 'bench',
      BOOTSTRAP_CLIENT_SECRET: 'bench-secret',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => chunk.includes('"listening"') && resolve()),
  );
  child.stdout.resume();
  return { child, url: `http://127.0.0.1:${port}` };
}

async function attack(root: string, databaseUrl: string, query: string) {
  const server = await startServer(root, databaseUrl);
  const token = await fetchToken(server.url, 'bench', 'bench-secret');
  const before = rssMiB(server.child.pid!);
  const started = performance.now();
  let outcome: string;
  try {
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    outcome = body.errors?.[0]?.extensions?.code ?? (body.errors ? 'error without code' : 'executed');
  } catch {
    outcome = `still busy after ${TIMEOUT_MS / 1000} s`;
  }
  const ms = Math.round(performance.now() - started);
  const after = rssMiB(server.child.pid!);
  server.child.kill('SIGKILL');
  return { ms, outcome, rssBeforeMiB: before, rssAfterMiB: after };
}

const postgres = await startEmbeddedPostgres({ dataDir: '', ephemeral: true, fast: true });
const url = await ensureDatabase(postgres.url, 'tally_attacks');
const sql = connect(url, { max: 1 });
await migrate(sql);
await sql.end();
// A world worth attacking: 200 ledgers on one schema, so nested lists have rows to multiply.
{
  const seeder = await startServer(path.resolve(import.meta.dirname, '..'), url);
  const token = await fetchToken(seeder.url, 'bench', 'bench-secret');
  const gql = (query: string) =>
    fetch(`${seeder.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
  await gql(
    'mutation { storeSchema(schema: { key: "s", chartOfAccounts: { accounts: [{ key: "cash", type: asset }] } }) { __typename } }',
  );
  for (let i = 0; i < 200; i++)
    await gql(
      `mutation { createLedger(ik: "l${i}", ledger: { name: "Ledger ${i}" }, schema: { key: "s" }) { __typename } }`,
    );
  seeder.child.kill('SIGKILL');
}
const roots = [['current', path.resolve(import.meta.dirname, '..')]];
if (process.env.BENCH_BASELINE) roots.unshift(['baseline', path.resolve(process.env.BENCH_BASELINE)]);
const rows: string[] = [];
for (const [name, query] of Object.entries(ATTACKS)) {
  for (const [variant, root] of roots) {
    const result = await attack(root, url, query);
    process.stdout.write(
      `${name.padEnd(14)} ${variant.padEnd(9)} ${String(result.ms).padStart(6)} ms  ${result.outcome}  RSS ${result.rssBeforeMiB} -> ${result.rssAfterMiB} MiB\n`,
    );
    rows.push(
      `| ${name} | ${variant} | ${result.ms} | ${result.outcome} | ${result.rssBeforeMiB} → ${result.rssAfterMiB} |`,
    );
  }
}
await postgres.stop();
fs.writeFileSync(
  path.join(import.meta.dirname, 'results', 'graphql-attacks.md'),
  [
    '# Hostile GraphQL documents (`bench/graphql-attacks.ts`)',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} CPUs; one request per fresh server process; timeout ${TIMEOUT_MS / 1000} s.`,
    'Attacks are those of test/support/graphqlAttacks.ts, against 200 ledgers on one schema; baseline is the commit before the GraphQL limits.',
    '',
    '| Attack | Server | ms | Outcome | Server RSS MiB before → after |',
    '|---|---|---:|---|---|',
    ...rows,
    '',
  ].join('\n'),
);
process.exit(0);
