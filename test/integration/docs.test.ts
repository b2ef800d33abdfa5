import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

// The billing API reference at /docs works offline: the page and its renderer are served by Tally.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

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
