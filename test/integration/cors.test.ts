import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What browsers see: CORS for pages on local origins by default and on the origins CORS_ORIGINS
// allows, refusals included, and nothing for any other origin.

let server: TestServer;
// Started with CORS_ORIGINS set, as a deployment serving pages on its own origins would be.
let configured: TestServer;
let workspace: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  configured = await startTestServer({ corsOrigins: ['https://app.example.com', 'https://*.preview.example.com'] });
  workspace = await server.workspace('CORS');
});
afterAll(async () => {
  await server?.close();
  await configured?.close();
});

describe('CORS', () => {
  it('answers a preflight from a local page on any port', async () => {
    const response = await fetch(`${server.baseUrl}/billing/products`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(response.headers.get('access-control-allow-headers')).toContain('authorization');
  });

  it('lets the page read answers, refusals included, with the request id and retry hint exposed', async () => {
    const ok = await fetch(`${server.baseUrl}/billing/products`, {
      headers: { origin: 'http://127.0.0.1:3000', authorization: `Bearer ${workspace.token}` },
    });
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
      const response = await fetch(`${server.baseUrl}/billing/products`, {
        headers: { origin, authorization: `Bearer ${workspace.token}` },
      });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('follows CORS_ORIGINS: exact origins and subdomain patterns', async () => {
    const allowed = async (origin: string) =>
      (await fetch(`${configured.baseUrl}/healthz`, { headers: { origin } })).headers.get(
        'access-control-allow-origin',
      );
    expect(await allowed('https://app.example.com')).toBe('https://app.example.com');
    expect(await allowed('https://pr-12.preview.example.com')).toBe('https://pr-12.preview.example.com');
    expect(await allowed('http://localhost:5173')).toBeNull();
    expect(await allowed('https://app.example.com.evil.io')).toBeNull();
  });
});
