import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { createClient, createWorkspace } from '../src/db/provision.js';
import { fetchToken } from '../test/support/token.js';
import { settleFold, startInProcessTally } from './support/inProcessTally.js';

// The dashboard on a ledger of a million lines (target: every page opens in under a second).
// Seeds through the API: 100,000 entries of 10 lines over two years, each with one line on a hot
// account (100,000 lines of its own) and nine on liability accounts; then opens each page kind in
// headless Chromium, signed in, and times from navigation to the page fully rendered, with the
// requests and bytes the page asked for. Writes bench/results/dashboard.md.

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 100_000);
const LINES_PER_ENTRY = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 32;
const DAY_MS = 86_400_000;
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (candidate) => candidate && fs.existsSync(candidate),
);

type PageFigures = { page: string; p50: number; max: number; requests: number; kB: number };

async function main() {
  if (!CHROMIUM) throw new Error('no Chromium: install Debian’s chromium or set CHROMIUM_PATH');
  const tally = await startInProcessTally();
  const { sql, baseUrl } = tally;
  const workspaceId = await createWorkspace(sql, 'bench');
  const client = await createClient(sql, workspaceId);
  const token = await fetchToken(baseUrl, client.clientId, client.clientSecret);

  const seedStarted = performance.now();
  const ids = await seed(baseUrl, token);
  await settleFold(sql, workspaceId);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const [{ lines }] = await sql<{ lines: number }[]>`
    select count(*)::int as lines from ledger_lines where workspace_id = ${workspaceId}`;

  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await signIn(page, baseUrl, client.clientId, client.clientSecret);
  const pages: [string, string][] = [
    ['ledgers', '/dashboard'],
    ['a ledger (its account tree, entries and groups)', `/dashboard/ledgers/${ids.ledgerId}`],
    [`the hot account, daily chart (${ENTRIES} lines)`, `/dashboard/accounts/${ids.hotAccountId}`],
    ['the hot account, monthly chart', `/dashboard/accounts/${ids.hotAccountId}?granularity=monthly`],
    ['an entry (10 lines)', `/dashboard/entries/${ids.entryId}`],
    ['an entry group', `/dashboard/ledgers/${ids.ledgerId}/groups/day/d0`],
  ];
  const figures: PageFigures[] = [];
  for (const [name, route] of pages) figures.push(await timePage(page, `${baseUrl}${route}`, name));
  await browser.close();

  writeResults({ entries: ENTRIES, lines, seedSeconds }, figures);
  console.log(JSON.stringify({ lines, seedSeconds, figures }, null, 2));
  await tally.stop();
}

async function signIn(page: Page, baseUrl: string, clientId: string, secret: string) {
  await page.goto(`${baseUrl}/dashboard`);
  await page.waitForSelector('form.sign-in');
  await page.type('#client-id', clientId);
  await page.type('#client-secret', secret);
  await page.click('form.sign-in button');
  await page.waitForSelector('main:not([aria-busy])', { timeout: 60_000 });
}

/** Opens the page ROUNDS times (after one warm-up), from navigation until it has rendered. */
async function timePage(page: Page, url: string, name: string): Promise<PageFigures> {
  const samples: number[] = [];
  let requests = 0;
  let bytes = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    let roundRequests = 0;
    let roundBytes = 0;
    const onResponse = (response: { url(): string; headers(): Record<string, string> }) => {
      if (!response.url().includes('/dashboard/assets/') && !response.url().endsWith('.css')) {
        roundRequests++;
        roundBytes += Number(response.headers()['content-length'] ?? 0);
      }
    };
    page.on('response', onResponse);
    const started = performance.now();
    await page.goto(url);
    await page.waitForSelector('main:not([aria-busy])', { timeout: 60_000 });
    const elapsed = performance.now() - started;
    page.off('response', onResponse);
    if ((await page.$('[data-problem]')) !== null)
      throw new Error(`${name}: ${await page.$eval('main', (m) => m.textContent)}`);
    if (round === 0) continue; // warm-up: the browser's cache of the script, the server's of documents
    samples.push(elapsed);
    requests = roundRequests;
    bytes = roundBytes;
  }
  samples.sort((a, b) => a - b);
  return {
    page: name,
    p50: round1(samples[Math.floor(samples.length / 2)]),
    max: round1(samples.at(-1)!),
    requests,
    kB: round1(bytes / 1024),
  };
}

async function seed(baseUrl: string, token: string) {
  const graphql = async (query: string, variables?: unknown) => {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return await response.json();
  };
  const created = await graphql(
    'mutation { createLedger(ik: "big", ledger: { name: "A million lines", balanceUTCOffset: "+05:30" }) { ... on CreateLedgerResult { ledger { id } } } }',
  );
  const ledgerId: string = created.data.createLedger.ledger.id;
  const others = Array.from(
    { length: 40 },
    (_, i) => `{ ik: "customer-${i}", name: "Customer ${i}", type: liability, currency: { code: USD } }`,
  );
  const accounts = await graphql(
    `mutation { createLedgerAccounts(ledger: { ik: "big" }, ledgerAccounts: [
      { ik: "bank", name: "Bank", type: asset, currency: { code: USD }, childLedgerAccounts: [{ ik: "operating", name: "Operating" }] },
      ${others.join(',')}
    ]) { ... on CreateLedgerAccountsResult { ledgerAccounts { id path } } } }`,
  );
  const hotAccountId: string = accounts.data.createLedgerAccounts.ledgerAccounts.find(
    (account: { path: string }) => account.path === 'bank/operating',
  ).id;

  // One entry a call (a batch holds at most 30 lines), many calls in flight: the group commit batches them.
  const now = Date.now();
  let next = 0;
  let entryId = '';
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ENTRIES) {
        const n = next++;
        const days = (n * 7919) % 730;
        const amounts = Array.from({ length: LINES_PER_ENTRY - 1 }, (_, k) => BigInt(((n + k) % 97) + 1));
        const answer = await graphql(
          `
            mutation ($ik: SafeString!, $entry: LedgerEntryInput!) {
              addLedgerEntry(ik: $ik, entry: $entry) {
                __typename
                ... on AddLedgerEntryResult {
                  entry {
                    id
                  }
                }
                ... on BadRequestError {
                  code
                  message
                }
              }
            }
          `,
          {
            ik: `e${n}`,
            entry: {
              ledger: { ik: 'big' },
              posted: new Date(now - days * DAY_MS - (n % 24) * 3_600_000).toISOString(),
              groups: [{ key: 'day', value: `d${days}` }],
              lines: [
                { account: { path: 'bank/operating' }, amount: String(amounts.reduce((sum, a) => sum + a, 0n)) },
                ...amounts.map((amount, k) => ({
                  account: { path: `customer-${(n + k) % 40}` },
                  amount: String(amount),
                })),
              ],
            },
          },
        );
        if (answer.data?.addLedgerEntry?.__typename !== 'AddLedgerEntryResult')
          throw new Error(`seeding entries: ${JSON.stringify(answer)}`);
        if (n === 0) entryId = answer.data.addLedgerEntry.entry.id;
        if (n % 10_000 === 0) process.stderr.write(`seeded ${n} entries\n`);
      }
    }),
  );
  return { ledgerId, hotAccountId, entryId };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function writeResults(seeded: { entries: number; lines: number; seedSeconds: number }, figures: PageFigures[]) {
  const rows = figures.map(
    (f) => `| ${f.page} | ${f.p50} | ${f.max} | ${f.requests} | ${f.kB} | ${f.max < 1000 ? 'yes' : '**no**'} |`,
  );
  const text = `# The dashboard on a ledger of a million lines

\`make bench-dashboard\`, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores. The app in the
benchmark's process over an embedded PostgreSQL (as \`TALLY_EPHEMERAL=1 make run\`), headless Chromium on the
same machine, signed in as an API client.

The ledger: ${seeded.entries} entries of ${LINES_PER_ENTRY} lines (${seeded.lines} lines) over the last two years, at
UTC+05:30; every entry has a line on \`bank/operating\` (${seeded.entries} lines of its own) and nine on 40 customer
accounts; seeded through \`addLedgerEntry\` (32 in flight) in ${round1(seeded.seedSeconds)} s.

Each page is opened ${ROUNDS} times after one warm-up, timed from navigation until the page has rendered
(every request it makes has been answered and drawn). Requests and kB: the page's document and its API
calls (the script and styles are revalidated by ETag, not counted).

| Page | p50 ms | max ms | requests | kB | under 1 s |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
  fs.writeFileSync(path.join(import.meta.dirname, 'results', 'dashboard.md'), text);
}

await main();
