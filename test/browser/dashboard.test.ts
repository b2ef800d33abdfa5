import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardWorld, type DashboardWorld } from '../support/dashboardWorld.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// The dashboard in headless Chromium, on a seeded workspace: sign in with a client's id and
// secret, open every kind of page, and check that what it shows equals what the API answers;
// follow `dashboardUrl`s from GraphQL answers; nothing is loaded from outside Tally, and another
// workspace's objects are not found. UPDATE_SCREENSHOTS=1 refreshes the README's screenshots.

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (candidate) => candidate && fs.existsSync(candidate),
);
const SCREENSHOTS = path.resolve(import.meta.dirname, 'screenshots');

describe.skipIf(!CHROMIUM)('the dashboard in a browser', () => {
  let server: TestServer;
  let workspace: TestWorkspace;
  let other: TestWorkspace;
  let world: DashboardWorld;
  let otherLedgerId: string;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const api = async (query: string, variables: Record<string, unknown> = {}) => {
    const { body } = await gql(server.baseUrl, workspace.token, query, variables);
    expect(body.errors).toBeUndefined();
    return body.data;
  };
  const billing = async (pathAndQuery: string) =>
    (
      await (
        await fetch(`${server.baseUrl}/billing${pathAndQuery}`, {
          headers: { authorization: `Bearer ${workspace.token}` },
        })
      ).json()
    ).data;

  /** Opens a dashboard address and waits until its page has rendered, signing in first when asked to. */
  const open = async (url: string, { signIn = true } = {}) => {
    await page.goto(url.startsWith('http') ? url : `${server.baseUrl}${url}`);
    await settled();
    if (signIn && (await page.$('form.sign-in'))) {
      await page.type('#client-id', workspace.clientId);
      await page.type('#client-secret', workspace.clientSecret);
      await page.click('form.sign-in button');
      await page.waitForSelector('main');
      await settled();
    }
  };
  const settled = () =>
    page.waitForFunction(() => document.querySelector('main:not([aria-busy]), form.sign-in'), { timeout: 30_000 });
  const text = (selector: string) => page.$eval(selector, (element) => element.textContent ?? '');
  const figure = (name: string) =>
    page.$eval(`[data-figure="${name}"]`, (element) => (element as HTMLElement).dataset.amount);
  const shot = async (name: string) => {
    if (!process.env.UPDATE_SCREENSHOTS) return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
  };

  beforeAll(async () => {
    server = await startTestServer();
    workspace = await server.workspace('Dashboard');
    other = await server.workspace('Someone else');
    world = await buildDashboardWorld(server.baseUrl, workspace);
    const created = await gql(
      server.baseUrl,
      other.token,
      'mutation { createLedger(ik: "theirs", ledger: { name: "Theirs" }) { ... on CreateLedgerResult { ledger { id } } } }',
    );
    otherLedgerId = created.body.data.createLedger.ledger.id;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('refuses a wrong secret, then signs in with the client id and secret and lists the ledgers', async () => {
    await open('/dashboard', { signIn: false });
    await page.type('#client-id', workspace.clientId);
    await page.type('#client-secret', 'not-the-secret');
    await page.click('form.sign-in button');
    await page.waitForFunction(() => document.querySelector('.problem')?.textContent);
    expect(await page.$('main')).toBeNull();

    await page.$eval('#client-secret', (input) => ((input as HTMLInputElement).value = ''));
    await page.type('#client-secret', workspace.clientSecret);
    await page.click('form.sign-in button');
    await page.waitForSelector('[data-list="ledgers"]', { timeout: 30_000 });
    expect(await text('[data-list="ledgers"]')).toContain('Dashboard ledger');
    expect(await text('[data-list="ledgers"]')).not.toContain('Theirs');
    expect(await text('[data-list="ledgers"]')).toContain('+05:30');
    // The token lives in sessionStorage only; the secret is kept nowhere.
    const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
    expect(stored).not.toContain(workspace.clientSecret);
  }, 60_000);

  it('follows every kind of dashboardUrl from a GraphQL answer to its page', async () => {
    const data = await api(
      `query($ledger: ID!, $account: ID!, $entry: ID!, $link: ID!) {
        ledger(ledger: { id: $ledger }) { name dashboardUrl }
        ledgerAccount(ledgerAccount: { id: $account }) { path dashboardUrl }
        ledgerEntry(ledgerEntry: { id: $entry }) { description dashboardUrl groups { key value dashboardUrl } }
        link(link: { id: $link }) { name dashboardUrl }
      }`,
      {
        ledger: world.ledgerId,
        account: world.accounts['bank/operating'],
        entry: world.entryIds[3],
        link: world.linkId,
      },
    );
    const visits: [string, string][] = [
      [data.ledger.dashboardUrl, data.ledger.name],
      [data.ledgerAccount.dashboardUrl, data.ledgerAccount.path],
      [data.ledgerEntry.dashboardUrl, data.ledgerEntry.description],
      [
        data.ledgerEntry.groups[0].dashboardUrl,
        `${data.ledgerEntry.groups[0].key}: ${data.ledgerEntry.groups[0].value}`,
      ],
      [data.link.dashboardUrl, data.link.name],
    ];
    for (const [url, title] of visits) {
      expect(url.startsWith(`${server.baseUrl}/dashboard/`)).toBe(true);
      await open(url);
      expect(await text('main h1')).toBe(title);
    }
  }, 60_000);

  it('shows an account’s balances, its balance history as a chart, and its lines linking to their entries', async () => {
    const accountId = world.accounts['bank/operating'];
    await open(`/dashboard/accounts/${accountId}`);
    const { ledgerAccount } = await api(
      `query($id: ID!) { ledgerAccount(ledgerAccount: { id: $id }) {
        ownBalance(currency: { code: INR }) balance(currency: { code: INR }) lines(first: 1) { nodes { amount ledgerEntryId } }
      } }`,
      { id: accountId },
    );
    expect(await figure('own:INR')).toBe(ledgerAccount.ownBalance);
    expect(await figure('total:INR')).toBe(ledgerAccount.balance);

    const chart = () =>
      page.$eval('figure.chart', (element) => ({
        points: Number(element.dataset.points),
        last: element.dataset.last,
        canvas: Boolean(element.querySelector('canvas')),
        rows: Array.from(element.querySelectorAll('table.series tbody tr'), (row) =>
          Array.from(row.querySelectorAll('td'), (cell) => cell.textContent.replaceAll(',', '').replace('.', '')),
        ),
      }));
    // The ledger's wall clock is UTC+05:30: its today, and the month it is in.
    const local = new Date(Date.now() + 330 * 60_000);
    const day = (back: number) => new Date(local.getTime() - back * 86_400_000).toISOString().slice(0, 10);
    const month = (back: number) =>
      new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
    const daily = await chart();
    expect(daily).toMatchObject({ points: 90, last: ledgerAccount.balance, canvas: true });
    expect(daily.rows.map((row) => row[0])).toEqual(Array.from({ length: 90 }, (_, i) => day(89 - i)));
    // Each change is the difference of consecutive balances; entries began 100 days ago.
    for (let i = 1; i < 90; i++)
      expect(BigInt(daily.rows[i][1]) - BigInt(daily.rows[i - 1][1])).toBe(BigInt(daily.rows[i][2]));
    expect(BigInt(daily.rows[0][1])).toBeGreaterThan(0n);
    // The change over the span is what the balance gained since just before its first day.
    const gained = BigInt(ledgerAccount.balance) - BigInt(daily.rows[0][1]) + BigInt(daily.rows[0][2]);
    expect(await figure('span-change')).toBe(gained.toString());
    await shot('dashboard-account');

    await page.click('nav.chooser a:nth-child(2)');
    await settled();
    const monthly = await chart();
    expect(monthly).toMatchObject({ points: 24, last: ledgerAccount.balance, canvas: true });
    expect(monthly.rows.map((row) => row[0])).toEqual(Array.from({ length: 24 }, (_, i) => month(23 - i)));
    expect(monthly.rows[0][1]).toBe('000');

    // The newest line is first and links to its entry.
    expect(
      await page.$eval('[data-list="account-lines"] tbody tr [data-amount]', (e) => (e as HTMLElement).dataset.amount),
    ).toBe(ledgerAccount.lines.nodes[0].amount);
    await page.click('[data-list="account-lines"] tbody tr a');
    await settled();
    expect(page.url()).toBe(`${server.baseUrl}/dashboard/entries/${ledgerAccount.lines.nodes[0].ledgerEntryId}`);
    expect(await text('main .page-head .kind')).toBe('Entry');
  }, 60_000);

  it('shows the chart of accounts as a tree with each account’s own and total balance', async () => {
    await open(`/dashboard/ledgers/${world.ledgerId}`);
    const { ledger } = await api(
      `query($id: ID!) { ledger(ledger: { id: $id }) { ledgerAccounts(first: 100) { nodes { path ownBalances { nodes { amount } } balances { nodes { amount } } } } } }`,
      { id: world.ledgerId },
    );
    for (const account of ledger.ledgerAccounts.nodes) {
      expect(await figure(`total:${account.path}:INR`).catch(() => undefined)).toBe(account.balances.nodes[0]?.amount);
    }
    // bank holds nothing itself; its total is its child's.
    expect(await figure('own:bank:INR').catch(() => undefined)).toBeUndefined();
    expect(await figure('total:bank:INR')).toBe(await figure('total:bank/operating:INR'));
    // Children are indented under their parent, in path order.
    const tree = await page.$$eval('table.accounts tbody tr td:first-child', (cells) =>
      cells.map((cell) => cell.textContent.split(' ')[0]),
    );
    expect(tree.indexOf('operating')).toBe(tree.indexOf('bank') + 1);
    expect(await text('main')).toContain('Entry groups');
    await shot('dashboard-ledger');

    // A ledger bound to a schema shows the schema's key and version and its entry types.
    await open(`/dashboard/ledgers/${world.schemaLedgerId}`);
    const { ledger: onSchema } = await api(
      `query($id: ID!) { ledger(ledger: { id: $id }) { schema { key version { version json } } } }`,
      { id: world.schemaLedgerId },
    );
    const main = await text('main');
    expect(main).toContain(`${onSchema.schema.key} v${onSchema.schema.version.version}`);
    for (const type of onSchema.schema.version.json.ledgerEntries.types) expect(main).toContain(type.type);
  }, 60_000);

  it('shows an entry with its lines, tags, groups, conditions and reversal', async () => {
    await open(`/dashboard/entries/${world.entryIds[44]}`);
    const main = await text('main');
    expect(main).toContain('deposit-44');
    expect(main).toContain('channel: branch');
    expect(main).toContain('own balance ≥ 0.00');
    expect(await page.$$eval('main table.lines tbody tr', (rows) => rows.length)).toBe(2);

    await open(`/dashboard/entries/${world.entryIds[40]}`);
    expect(await text('main')).toContain('Reversed by');
    await page.click('main a[href*="/groups/week/"]');
    await settled();
    expect(await text('main h1')).toBe('week: w5');
    const { ledgerEntryGroup } = await api(
      `query($ledger: ID!) { ledgerEntryGroup(ledgerEntryGroup: { ledger: { id: $ledger }, key: "week", value: "w5" }) {
        balances { nodes { account { path } ownBalance } } } }`,
      { ledger: world.ledgerId },
    );
    for (const balance of ledgerEntryGroup.balances.nodes)
      expect(await figure(`group:${balance.account.path}:INR`)).toBe(balance.ownBalance);
  }, 60_000);

  it('shows a link’s external accounts and the transactions not yet reconciled', async () => {
    await open(`/dashboard/links/${world.linkId}`);
    const unreconciled = await text('.unreconciled table');
    expect(unreconciled).toContain('bank-tx-2');
    expect(unreconciled).not.toContain('bank-tx-1');
    expect(await figure('unreconciled:checking:INR')).toBe('-2000');
  }, 60_000);

  it('shows invoices with balances and versions, transactions by status, and payment plans as batches', async () => {
    const invoices = await billing('/invoices');
    const versioned = invoices.find((invoice: any) => invoice.version > 1);
    const invoice = await billing(`/invoices/${encodeURIComponent(versioned.id)}`);
    const history = await billing(`/invoices/${encodeURIComponent(versioned.id)}/history`);
    await open('/dashboard/invoices');
    expect(await page.$$eval('[data-list="invoices"] tbody tr', (rows) => rows.length)).toBe(invoices.length);
    await page.click(`[data-list="invoices"] a[href$="/${encodeURIComponent(versioned.id)}"]`);
    await settled();
    const row = invoice.balances[0];
    expect(await figure(`invoice:payins-remaining:${row.currency}`)).toBe(row.payins.remaining);
    expect(await figure(`invoice:net-remaining:${row.currency}`)).toBe(row.net.remaining);
    expect(await page.$$eval('ol.versions > li', (items) => items.length)).toBe(history.length);
    await shot('dashboard-invoice');

    for (const status of ['unreconciled', 'reconciled']) {
      const expected = await billing(`/transactions?reconciliation_status=${status}`);
      await open(`/dashboard/transactions?status=${status}`);
      expect(
        await page.$$eval('[data-list="transactions"] tbody tr td:nth-child(2)', (cells) =>
          cells.map((c) => c.textContent),
        ),
      ).toEqual(expected.map((tx: any) => tx.external_id));
    }

    const flows = (
      await (
        await fetch(`${server.baseUrl}/billing/payment-flows/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${workspace.token}`, 'content-type': 'application/json' },
          body: '{}',
        })
      ).json()
    ).data;
    expect(flows.length).toBeGreaterThan(0);
    await open('/dashboard/payment-flows');
    await page.click('[data-list="payment-flows"] tbody tr a');
    await settled();
    const batches = await page.$$eval('svg.plan [data-batch]', (groups) =>
      groups.map((g) => g.getAttribute('data-batch')),
    );
    const shown = flows.find((flow: any) => page.url().endsWith(`/${flow.id}`));
    expect(batches).toEqual(shown.payment_plan.batches.map((batch: any) => batch.batch_id));
    await shot('dashboard-payment-flow');
  }, 60_000);

  it('asks to sign in again when the token is refused, and forgets it on signing out', async () => {
    await open('/dashboard/links');
    // A token the server no longer accepts (tampered, expired or revoked): the next read gets 401.
    await page.evaluate(() => {
      const key = Object.keys(sessionStorage)[0];
      const session = JSON.parse(sessionStorage.getItem(key)!);
      sessionStorage.setItem(key, JSON.stringify({ ...session, token: `${session.token}x` }));
    });
    await open('/dashboard/invoices', { signIn: false });
    expect(await page.$('form.sign-in')).not.toBeNull();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    await open('/dashboard/invoices');
    expect(await page.$('[data-list="invoices"]')).not.toBeNull();
    await page.click('nav.top button');
    await page.waitForSelector('form.sign-in');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  }, 60_000);

  it('does not find another workspace’s objects, names unknown pages, and loads nothing from outside Tally', async () => {
    await open(`/dashboard/ledgers/${otherLedgerId}`);
    expect(await text('main h1')).toBe('Not found');
    await open('/dashboard/no/such/page');
    expect(await text('main h1')).toBe('Not found');
    const status = (await fetch(`${server.baseUrl}/dashboard/no/such/page`)).status;
    expect(status).toBe(404);
    expect(foreign).toEqual([]);
  }, 60_000);
});
