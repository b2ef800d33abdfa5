import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer } from '../support/server.js';

// The HTTP surface outside both APIs: health, the served contracts, request ids, and what a request
// that is not valid HTTP gets back.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('operational routes', () => {
  it('serve the contracts and health', async () => {
    expect((await rest(server.baseUrl, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await rest(server.baseUrl, 'GET', '/readyz')).body).toEqual({ status: 'ready' });
    const sdl = await fetch(`${server.baseUrl}/schema.graphql`);
    expect(await sdl.text()).toContain('type Query');
    const openapi = await fetch(`${server.baseUrl}/openapi.yaml`);
    expect(openapi.headers.get('content-type')).toContain('yaml');
    expect(await openapi.text()).toContain('openapi: 3.1');
  });

  it('echo a sane X-Request-Id and put it in error bodies', async () => {
    const response = await fetch(`${server.baseUrl}/billing/products`, { headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-123');
    expect(await response.json()).toMatchObject({ request_id: 'trace-123' });
  });
});

describe('requests that are not valid HTTP', () => {
  it('get a typed 400 in the catalogue shape, not a bare answer', async () => {
    const { port, hostname } = new URL(server.baseUrl);
    const raw = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), hostname, () =>
        socket.write('GET /billing/products HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'invalid_request',
      retryable: false,
    });
  });
});
