import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from '../support/server.js';

// The billing contract as served at /openapi.yaml names the URL the caller reached (or PUBLIC_URL
// behind a proxy), so tools pointed at it call the right server.

let server: TestServer;
// Started with PUBLIC_URL set, as behind a reverse proxy.
let proxied: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  proxied = await startTestServer({ publicUrl: 'https://api.example.com/tally' });
});
afterAll(async () => {
  await server?.close();
  await proxied?.close();
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
      billing: [`${base}/billing`, base],
      tokenUrl: `${base}/oauth2/token`,
    });
  });

  it('names PUBLIC_URL behind a proxy, and ignores a Host header that is not a plain host', async () => {
    expect(servers(await (await fetch(`${proxied.baseUrl}/openapi.yaml`)).text())).toEqual({
      billing: ['https://api.example.com/tally/billing', 'https://api.example.com/tally'],
      tokenUrl: 'https://api.example.com/tally/oauth2/token',
    });
    const { default: http } = await import('node:http');
    const text = await new Promise<string>((resolve, reject) => {
      http
        .get(`${server.baseUrl}/openapi.yaml`, { headers: { host: 'x"y:1/#z' } }, (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    expect(servers(text).tokenUrl).toBe('http://localhost:8080/oauth2/token');
  });
});
