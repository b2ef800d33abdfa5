import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fetchToken } from '../test/support/token.js';
import { settleFold, startInProcessTally } from './support/inProcessTally.js';

// The sandbox admin API's costs, as a test suite meets them: a workspace and client per test
// (target ≤ 20 ms a create), and saving, resetting and restoring a workspace that holds 10,000
// ledger entries and 1,000 invoices (target ≤ 1 s each). Runs the app in this process over an
// embedded database, as `TALLY_EPHEMERAL=1 make run` does. Writes bench/results/sandbox.md.

const CREATES = Number(process.env.BENCH_CREATES ?? 200);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 10_000);
const INVOICES = Number(process.env.BENCH_INVOICES ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const ACCOUNTS = 200;
const BATCH = 15;
const CONCURRENCY = 16;
const DAY_MS = 86_400_000;

type Timing = { p50: number; p99: number; mean: number; max: number };

async function main() {
  const tally = await startInProcessTally({ sandbox: { adminToken: ADMIN_TOKEN } });
  const { sql, baseUrl } = tally;
  const admin = (method: string, route: string, body?: unknown) =>
    call(baseUrl, ADMIN_TOKEN, method, `/sandbox${route}`, body);

  // Warm up: the first call reads the table layout and makes the shadow tables.
  await admin('POST', '/workspaces', { name: 'warm-up' });
  const creates: number[] = [];
  const createsWithToken: number[] = [];
  for (let i = 0; i < CREATES; i++) {
    const started = performance.now();
    const created = (await admin('POST', '/workspaces', { name: `test ${i}` })).data;
    creates.push(performance.now() - started);
    await fetchToken(baseUrl, created.client.client_id, created.client.client_secret);
    createsWithToken.push(performance.now() - started);
  }

  const created = (await admin('POST', '/workspaces', { name: 'seeded' })).data;
  const workspaceId: string = created.workspace.id;
  const token = await fetchToken(baseUrl, created.client.client_id, created.client.client_secret);
  const seedStarted = performance.now();
  await seed(baseUrl, token);
  await settleFold(sql, workspaceId);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const [{ rows }] = await sql<{ rows: number }[]>`
    select (select count(*) from ledger_entries where workspace_id = ${workspaceId})::int
         + (select count(*) from invoices where workspace_id = ${workspaceId})::int as rows`;

  const saves: number[] = [];
  const resets: number[] = [];
  const restores: number[] = [];
  let snapshotRows = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let started = performance.now();
    snapshotRows = (await admin('POST', `/workspaces/${workspaceId}/snapshots`, { name: 'seeded', replace: true })).data
      .rows;
    saves.push(performance.now() - started);
    started = performance.now();
    await admin('POST', `/workspaces/${workspaceId}/reset`);
    resets.push(performance.now() - started);
    started = performance.now();
    await admin('POST', `/workspaces/${workspaceId}/snapshots/seeded/restore`);
    restores.push(performance.now() - started);
  }
  // The restored workspace answers as before: the last entry's balance read still works.
  const check = await call(baseUrl, token, 'POST', '/graphql', {
    query: 'query { ledgerAccount(ledgerAccount: { ledger: { ik: "bench" }, path: "a0" }) { ownBalance } }',
  });
  if (!check.data?.ledgerAccount) throw new Error(`restored workspace does not answer: ${JSON.stringify(check)}`);

  const figures = {
    creates: timing(creates),
    createsWithToken: timing(createsWithToken),
    seed: { entries: ENTRIES, invoices: INVOICES, seconds: round1(seedSeconds), checkedRows: rows, snapshotRows },
    save: timing(saves),
    reset: timing(resets),
    restore: timing(restores),
  };
  writeResults(figures);
  console.log(JSON.stringify(figures, null, 2));
  await tally.stop();
}

async function seed(baseUrl: string, token: string) {
  const graphql = (query: string, variables?: unknown) =>
    call(baseUrl, token, 'POST', '/graphql', { query, variables });
  await graphql('mutation { createLedger(ik: "bench", ledger: { name: "Bench" }) { __typename } }');
  const accounts = Array.from(
    { length: ACCOUNTS },
    (_, i) => `{ ik: "a${i}", name: "a${i}", type: ${i % 2 === 0 ? 'asset' : 'liability'} }`,
  ).join(',');
  await graphql(
    `mutation { createLedgerAccounts(ledger: { ik: "bench" }, ledgerAccounts: [${accounts}]) { __typename } }`,
  );
  // Entries spread over the last 90 days, so balance history holds hour, day and month buckets.
  const now = Date.now();
  const batches = Math.ceil(ENTRIES / BATCH);
  await inParallel(batches, async (b) => {
    const entries = Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i;
      const asset = 2 * (n % (ACCOUNTS / 2));
      return {
        ik: `e${n}`,
        entry: {
          ledger: { ik: 'bench' },
          posted: new Date(now - ((n * 7919) % 90) * DAY_MS - (n % 24) * 3_600_000).toISOString(),
          lines: [
            { account: { path: `a${asset}` }, amount: `${(n % 97) + 1}` },
            { account: { path: `a${asset + 1}` }, amount: `${(n % 97) + 1}` },
          ],
        },
      };
    });
    const answer = await graphql(
      'mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) { __typename } }',
      { entries },
    );
    if (answer.data?.addLedgerEntries?.__typename !== 'AddLedgerEntriesResult')
      throw new Error(`seeding entries: ${JSON.stringify(answer)}`);
  });
  await call(baseUrl, token, 'POST', '/billing/products', {
    code: 'plan',
    description: 'Plan',
    paid_by_roles: [{ name: 'buyer' }],
  });
  await inParallel(INVOICES, async (n) => {
    const answer = await call(baseUrl, token, 'POST', '/billing/invoices', {
      invoice_id: `inv-${n}`,
      line_items: Array.from({ length: 10 }, (_, i) => ({
        description: `item ${i}`,
        product_id: 'plan',
        type: 'payin',
        user: { external_id: `user-${n % 50}` },
        currency_code: 'USD',
        price: { amount: `${100 + i}` },
      })),
    });
    if (!answer.data) throw new Error(`seeding invoices: ${JSON.stringify(answer)}`);
  });
}

async function inParallel(count: number, work: (n: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

async function call(baseUrl: string, token: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    p50: round1(at(0.5)),
    p99: round1(at(0.99)),
    mean: round1(samples.reduce((a, b) => a + b, 0) / samples.length),
    max: round1(sorted[sorted.length - 1]),
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function writeResults(figures: Record<string, any>) {
  const row = (name: string, t: Timing, target: string) =>
    `| ${name} | ${t.p50} | ${t.p99} | ${t.mean} | ${t.max} | ${target} |`;
  const text = `# Sandbox admin API

\`make bench-sandbox\`, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores. The app in the
benchmark's process over an embedded PostgreSQL (as \`TALLY_EPHEMERAL=1 make run\`: fsync off), one caller at a time.

The seeded workspace: ${figures.seed.entries} ledger entries (2 lines each, over 90 days of balance history) and
${figures.seed.invoices} invoices of 10 line items, seeded in ${figures.seed.seconds} s; the snapshot holds
${figures.seed.snapshotRows} rows across all tables.

| Operation | p50 ms | p99 ms | mean ms | max ms | target |
|---|---|---|---|---|---|
${row(`create workspace and client (${CREATES} times)`, figures.creates, '≤ 20 ms')}
${row('… and fetch its first token', figures.createsWithToken, '')}
${row(`save a snapshot (${ROUNDS} rounds)`, figures.save, '')}
${row('reset the workspace', figures.reset, '≤ 1 s')}
${row('restore the snapshot', figures.restore, '≤ 1 s')}
`;
  const results = path.resolve(import.meta.dirname, 'results');
  fs.writeFileSync(path.join(results, 'sandbox.md'), text);
  fs.writeFileSync(path.join(results, 'sandbox.json'), `${JSON.stringify(figures, null, 2)}\n`);
}

await main();
