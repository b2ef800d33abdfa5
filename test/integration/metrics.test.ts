import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What browsers and tools see: CORS for pages on allowed origins, a served contract that names
// the URL the caller reached, and Prometheus metrics.

let server: TestServer;
let proxied: TestServer;
let workspace: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  proxied = await startTestServer({ publicUrl: 'https://api.example.com/tally', corsOrigins: ['https://app.example.com', 'https://*.preview.example.com'] });
  workspace = await server.workspace('Toolbox');
});
afterAll(async () => {
  await server?.close();
  await proxied?.close();
});

describe('CORS', () => {
  it('answers a preflight from a local page on any port', async () => {
    const response = await fetch(`${server.baseUrl}/billing/products`, { method: 'OPTIONS', headers: {
      origin: 'http://localhost:5173', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization',
    } });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('lets the page read answers, refusals included, with the request id and retry hint exposed', async () => {
    const ok = await fetch(`${server.baseUrl}/billing/products`, { headers: { origin: 'http://127.0.0.1:3000', authorization: `Bearer ${workspace.token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:3000');
    expect(ok.headers.get('access-control-expose-headers')).toEqual(expect.stringContaining('x-request-id'));
    expect(ok.headers.get('access-control-expose-headers')).toEqual(expect.stringContaining('x-should-retry'));
    const refused = await fetch(`${server.baseUrl}/billing/products`, { headers: { origin: 'http://localhost:8081' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('http://localhost:8081');
  });

  it('gives other origins nothing, so the browser blocks them', async () => {
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
      const response = await fetch(`${server.baseUrl}/billing/products`, { headers: { origin, authorization: `Bearer ${workspace.token}` } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('follows CORS_ORIGINS: exact origins and subdomain patterns', async () => {
    const allowed = async (origin: string) => (await fetch(`${proxied.baseUrl}/healthz`, { headers: { origin } })).headers.get('access-control-allow-origin');
    expect(await allowed('https://app.example.com')).toBe('https://app.example.com');
    expect(await allowed('https://pr-12.preview.example.com')).toBe('https://pr-12.preview.example.com');
    expect(await allowed('http://localhost:5173')).toBeNull();
    expect(await allowed('https://app.example.com.evil.io')).toBeNull();
  });
});

describe('the served billing contract', () => {
  const servers = (text: string) => {
    const spec = parseYaml(text) as {
      servers: { url: string; variables: { origin: { default: string } } }[];
      components: { securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } } };
    };
    return {
      billing: spec.servers.map((s) => s.url.replace('{origin}', s.variables.origin.default)),
      tokenUrl: spec.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl,
    };
  };

  it('names the host and port the caller reached, in both route forms and the token URL', async () => {
    const base = server.baseUrl;
    expect(servers(await (await fetch(`${base}/openapi.yaml`)).text())).toEqual({
      billing: [`${base}/billing`, base], tokenUrl: `${base}/oauth2/token`,
    });
  });

  it('names PUBLIC_URL behind a proxy, and ignores a Host header that is not a plain host', async () => {
    expect(servers(await (await fetch(`${proxied.baseUrl}/openapi.yaml`)).text())).toEqual({
      billing: ['https://api.example.com/tally/billing', 'https://api.example.com/tally'],
      tokenUrl: 'https://api.example.com/tally/oauth2/token',
    });
    const { default: http } = await import('node:http');
    const text = await new Promise<string>((resolve, reject) => {
      http.get(`${server.baseUrl}/openapi.yaml`, { headers: { host: 'x"y:1/#z' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => { body += chunk; });
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
    expect(servers(text).tokenUrl).toBe('http://localhost:8080/oauth2/token');
  });
});

describe('/metrics', () => {
  it('counts requests by operation and status, GraphQL operations by name, and postings', async () => {
    await fetch(`${server.baseUrl}/billing/products`, { headers: { authorization: `Bearer ${workspace.token}` } });
    await fetch(`${server.baseUrl}/billing/nowhere/${'x'.repeat(20)}`, { headers: { authorization: `Bearer ${workspace.token}` } });
    await gql(server.baseUrl, workspace.token, 'query whoAmI { workspace { id } }');
    await gql(server.baseUrl, workspace.token, 'mutation { createLedger(ik: "m", ledger: { name: "M" }) { __typename } }');
    await gql(server.baseUrl, workspace.token, `mutation { createLedgerAccounts(ledger: { ik: "m" }, ledgerAccounts: [
      { ik: "a", name: "A", type: asset }, { ik: "b", name: "B", type: liability }]) { __typename } }`);
    const posted = await gql(server.baseUrl, workspace.token, `mutation post { addLedgerEntry(ik: "e1", entry: { ledger: { ik: "m" },
      lines: [{ account: { path: "a" }, amount: "5" }, { account: { path: "b" }, amount: "5" }] }) { __typename } }`);
    expect(posted.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');

    const response = await fetch(`${server.baseUrl}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/tally_http_requests_total\{operation="listProducts",method="GET",status="200"\} [1-9]/);
    expect(text).toMatch(/tally_http_requests_total\{operation="unknown_route",method="GET",status="404"\} [1-9]/);
    expect(text).not.toContain('xxxxxxxx');
    expect(text).toMatch(/tally_graphql_operations_total\{operation_name="whoAmI",operation_type="query"\} 1/);
    expect(text).toMatch(/tally_graphql_operations_total\{operation_name="post",operation_type="mutation"\} 1/);
    expect(text).toMatch(/tally_ledger_entries_posted_total [1-9]/);
    expect(text).toMatch(/tally_ledger_posting_duration_seconds_count [1-9]/);
    expect(text).toMatch(/tally_http_request_duration_seconds_bucket\{le="0.1",operation="listProducts"\} [1-9]/);
    expect(text).toContain('tally_process_resident_memory_bytes');
    expect(text).toMatch(/tally_db_connections\{state="max"\} 10/);
    expect(text).toMatch(/tally_db_connections\{state="idle"\} [1-9]/);
  });
});

describe('/metrics of postings', () => {
  const read = async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
    return { written: value('tally_ledger_entries_posted_total'), timed: value('tally_ledger_posting_duration_seconds_count') };
  };
  const post = (ik: string, amount: string, extra = '') => gql(server.baseUrl, workspace.token, `mutation { addLedgerEntry(ik: "${ik}",
    entry: { ledger: { ik: "pm" }, lines: [{ account: { path: "a" }, amount: "${amount}" }, { account: { path: "b" }, amount: "${amount}" }]${extra} }) {
    __typename ... on AddLedgerEntryResult { entry { id } } ... on Error { code } } }`);

  it('count the entries written by reversals and migrations, and time refused postings too', async () => {
    await gql(server.baseUrl, workspace.token, 'mutation { createLedger(ik: "pm", ledger: { name: "PM" }) { __typename } }');
    await gql(server.baseUrl, workspace.token, `mutation { createLedgerAccounts(ledger: { ik: "pm" }, ledgerAccounts: [
      { ik: "a", name: "A", type: asset }, { ik: "b", name: "B", type: liability }]) { __typename } }`);
    const first = (await post('pm-1', '5')).body.data.addLedgerEntry.entry.id;
    const second = (await post('pm-2', '7')).body.data.addLedgerEntry.entry.id;

    let before = await read();
    const reversed = await gql(server.baseUrl, workspace.token, `mutation { reverseLedgerEntry(id: "${first}") { __typename } }`);
    expect(reversed.body.data.reverseLedgerEntry.__typename).toBe('ReverseLedgerEntryResult');
    expect(await read()).toEqual({ written: before.written + 1, timed: before.timed + 1 });

    before = await read();
    const migrated = await gql(server.baseUrl, workspace.token, `mutation($id: ID!) { migrateLedgerEntry(input: { id: $id, newLedgerEntry: {
      lines: [{ account: { path: "a" }, amount: "8" }, { account: { path: "b" }, amount: "8" }] } }) { __typename } }`, { id: second });
    expect(migrated.body.data.migrateLedgerEntry.__typename).toBe('MigrateLedgerEntryResult');
    expect(await read()).toEqual({ written: before.written + 2, timed: before.timed + 1 });

    before = await read();
    const refused = await post('pm-3', '1', ', conditions: [{ account: { path: "a" }, precondition: { ownBalance: { gte: "1000000" } } }]');
    expect(refused.body.data.addLedgerEntry.code).toBe('entry_condition_failed');
    expect(await read()).toEqual({ written: before.written, timed: before.timed + 1 });
  });
});

describe('/docs', () => {
  it('serves the API reference page and its renderer from the installed package, pointing at the served contract', async () => {
    const page = await fetch(`${server.baseUrl}/docs`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('data-url="/openapi.yaml"');
    expect(html).toContain('&quot;telemetry&quot;:false');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    // Every script the page loads is served by Tally itself: it works offline.
    const sources = [...html.matchAll(/src="([^"]+)"/g)].map((match) => match[1]);
    expect(sources).toEqual(['/docs/scalar.js']);
    const script = await fetch(`${server.baseUrl}/docs/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
  });
});
