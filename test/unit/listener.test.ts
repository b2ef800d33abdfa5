import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { bindListener, serveWith } from '../../src/http/listener.js';

const TIMEOUTS = { keepAliveTimeoutMs: 95_000, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 };

describe('the listener bound at start', () => {
  it("answers a retryable 503 in each endpoint's error shape until the app is ready, then the app", async () => {
    const server = await bindListener(0, '127.0.0.1', TIMEOUTS);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const rest = await fetch(`${base}/billing/products`);
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('1');
      expect(await rest.json()).toEqual({
        code: 'service_unavailable',
        message: 'Tally is starting; retry shortly.',
        retryable: true,
      });
      const graphql = await fetch(`${base}/graphql`, { method: 'POST', body: '{"query":"{ workspace { id } }"}' });
      expect(graphql.status).toBe(503);
      expect((await graphql.json()).errors[0].extensions).toEqual({ code: 'service_unavailable', retryable: true });

      serveWith(server, async (_request, response) => {
        response.end('ready');
      });
      expect(await (await fetch(`${base}/graphql`)).text()).toBe('ready');
    } finally {
      server.close();
    }
  });

  it('refuses a port in use in one line naming it', async () => {
    const first = await bindListener(0, '127.0.0.1', TIMEOUTS);
    const { port } = first.address() as AddressInfo;
    try {
      await expect(bindListener(port, '127.0.0.1', TIMEOUTS)).rejects.toThrow(`Port ${port} is in use`);
    } finally {
      first.close();
    }
  });
});
