import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchPage } from '../../src/dashboard/pages.js';
import { PAGE_POLICY } from '../../src/http/contentSecurityPolicy.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What the server does for the dashboard: absolute `dashboardUrl`s at PUBLIC_URL or the host the
// request reached, and the page and its assets under /dashboard (the browser tests drive the rest).

const URLS = `query($ledger: ID!, $entry: ID!) {
  ledger(ledger: { id: $ledger }) { dashboardUrl }
  ledgerEntry(ledgerEntry: { id: $entry }) { dashboardUrl groups { key value dashboardUrl } lines { nodes { account { id dashboardUrl } } } }
}`;

async function seed(server: TestServer, workspace: TestWorkspace) {
  const { body } = await gql(
    server.baseUrl,
    workspace.token,
    `mutation {
      createLedger(ik: "l", ledger: { name: "L" }) { ... on CreateLedgerResult { ledger { id } } }
      createLedgerAccounts(ledger: { ik: "l" }, ledgerAccounts: [
        { ik: "a", name: "A", type: asset, currency: { code: USD } }, { ik: "b", name: "B", type: liability, currency: { code: USD } }
      ]) { __typename }
      addLedgerEntry(ik: "e", entry: {
        ledger: { ik: "l" },
        lines: [{ account: { path: "a" }, amount: "1" }, { account: { path: "b" }, amount: "1" }],
        groups: [{ key: "batch ü", value: "50% off? & more" }]
      }) { ... on AddLedgerEntryResult { entry { id } } ... on BadRequestError { code message } }
    }`,
  );
  expect(body.errors).toBeUndefined();
  expect(body.data.addLedgerEntry.entry).toBeDefined();
  return { ledgerId: body.data.createLedger.ledger.id, entryId: body.data.addLedgerEntry.entry.id };
}

// One server reached at its own address, one behind a proxy that PUBLIC_URL names (with a path).
let plain: TestServer;
let proxied: TestServer;
beforeAll(async () => {
  plain = await startTestServer();
  proxied = await startTestServer({ publicUrl: 'https://ledger.example.com/tally' });
});
afterAll(async () => {
  await plain?.close();
  await proxied?.close();
});

describe('dashboardUrl', () => {
  it('is the absolute URL of the object’s page at PUBLIC_URL, parameters percent-encoded', async () => {
    const workspace = await proxied.workspace();
    const { ledgerId, entryId } = await seed(proxied, workspace);
    const { body } = await gql(proxied.baseUrl, workspace.token, URLS, { ledger: ledgerId, entry: entryId });
    const base = 'https://ledger.example.com/tally';
    expect(body.data.ledger.dashboardUrl).toBe(`${base}/dashboard/ledgers/${ledgerId}`);
    expect(body.data.ledgerEntry.dashboardUrl).toBe(`${base}/dashboard/entries/${entryId}`);
    const [group] = body.data.ledgerEntry.groups;
    const groupUrl = new URL(group.dashboardUrl);
    expect(groupUrl.origin + groupUrl.pathname).toBe(group.dashboardUrl); // no query or fragment leaked in
    expect(matchPage(groupUrl.pathname.slice('/tally'.length))).toEqual({
      page: 'group',
      ledgerId,
      key: 'batch ü',
      value: '50% off? & more',
    });
    for (const { account } of body.data.ledgerEntry.lines.nodes)
      expect(account.dashboardUrl).toBe(`${base}/dashboard/accounts/${account.id}`);
  });

  it('follows the Host the request reached without PUBLIC_URL, and ignores a Host that is not a plain host', async () => {
    const workspace = await plain.workspace();
    const { ledgerId } = await seed(plain, workspace);
    // node:http, since fetch does not let a caller choose the Host header.
    const ask = (host?: string) =>
      new Promise<string>((resolve, reject) => {
        const request = http.request(
          `${plain.baseUrl}/graphql`,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${workspace.token}`,
              ...(host && { host }),
            },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.on('end', () => resolve(JSON.parse(text).data.ledger.dashboardUrl));
          },
        );
        request.on('error', reject);
        request.end(JSON.stringify({ query: '{ ledger(ledger: { ik: "l" }) { dashboardUrl } }' }));
      });
    expect(await ask()).toBe(`${plain.baseUrl}/dashboard/ledgers/${ledgerId}`);
    expect(await ask('books.internal:9000')).toBe(`http://books.internal:9000/dashboard/ledgers/${ledgerId}`);
    expect(await ask('evil.example/phish?')).toBe(`http://localhost:8080/dashboard/ledgers/${ledgerId}`);
  });
});

describe('GET /dashboard', () => {
  it('answers the page for every page path, under the /docs policy, and 404 for a path that names none', async () => {
    for (const path of [
      '/dashboard',
      '/dashboard/',
      '/dashboard/accounts/acct_1',
      '/dashboard/ledgers/l/groups/k%2F1/v',
    ]) {
      const response = await fetch(`${plain.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
      expect(await response.text()).toContain('<meta name="tally-base-path" content="">');
    }
    for (const path of ['/dashboard/nothing', '/dashboard/accounts/%E0%A4%A', '/dashboard/accounts/a/b/c/d/e'])
      expect((await fetch(`${plain.baseUrl}${path}`)).status, path).toBe(404);
  });

  it('serves its script, bundled with the chart library, and its styles; nothing else under assets', async () => {
    const script = await fetch(`${plain.baseUrl}/dashboard/assets/dashboard.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    const code = await script.text();
    expect(code).toContain('uplot'); // the chart's class names come with the bundle
    expect(code).not.toMatch(/https?:\/\/(?!www\.w3\.org)/); // no URL to fetch anything from
    // Revalidated, not downloaded again, while it has not changed.
    const etag = script.headers.get('etag')!;
    // node:http, since fetch turns a conditional request into one that asks for a full answer.
    const again = await new Promise<number | undefined>((resolve) =>
      http.get(`${plain.baseUrl}/dashboard/assets/dashboard.js`, { headers: { 'if-none-match': etag } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }),
    );
    expect(again).toBe(304);
    for (const asset of ['dashboard.css', 'uplot.css']) {
      const response = await fetch(`${plain.baseUrl}/dashboard/assets/${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    }
    for (const asset of ['main.ts', '..%2Froutes.ts', 'constructor', '__proto__'])
      expect((await fetch(`${plain.baseUrl}/dashboard/assets/${asset}`)).status, asset).toBe(404);
  });

  it('writes the path of PUBLIC_URL into the page, for its links and requests behind a proxy', async () => {
    const html = await (await fetch(`${proxied.baseUrl}/dashboard`)).text();
    expect(html).toContain('<meta name="tally-base-path" content="/tally">');
    expect(html).toContain('src="/tally/dashboard/assets/dashboard.js"');
  });
});
