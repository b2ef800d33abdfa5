// The billing mock for frontend work: the server's own routing, bearer check, contract
// validation and error answers in front of Prism, which answers valid requests with the
// contract's named examples. So the mock refuses exactly what Tally refuses, with the same codes
// and violations, serves both `/billing/...` and the unprefixed routes, and accepts any bearer
// token (`Authorization: Bearer <anything>`). Nothing is stored.
//
// Environment: MOCK_REST_PORT (default 4010); PRISM_URL, where Prism listens (make mock starts it).

import Koa from 'koa';
import { pathToFileURL } from 'node:url';
import { createBillingApi, type MockAnswer } from '../billing/api.js';
import { readBodies } from '../http/bodies.js';
import type { AppState } from '../http/context.js';
import { corsPolicy } from '../http/cors.js';
import { errorResponses } from '../http/errors.js';
import { silentLogger } from '../observability/log.js';
import { DEFAULT_CORS_ORIGINS } from '../config.js';

/** Passes a valid request to Prism (unprefixed, with the caller's Prefer header) and relays its answer. */
function viaPrism(prismUrl: string): MockAnswer {
  return async (_operationId, c, ctx) => {
    const query = new URLSearchParams(c.request.query as Record<string, string>).toString();
    const headers: Record<string, string> = { authorization: ctx.get('authorization'), accept: 'application/json' };
    if (ctx.get('prefer')) headers.prefer = ctx.get('prefer');
    const hasBody = c.request.requestBody !== undefined && ctx.method !== 'GET';
    if (hasBody) headers['content-type'] = 'application/json';
    const response = await fetch(`${prismUrl}${c.request.path}${query ? `?${query}` : ''}`, {
      method: ctx.method,
      headers,
      body: hasBody ? JSON.stringify(c.request.requestBody) : undefined,
    });
    ctx.status = response.status;
    ctx.type = response.headers.get('content-type') ?? 'application/json';
    ctx.body = await response.text();
  };
}

export async function createBillingMock(prismUrl: string): Promise<Koa<AppState>> {
  const app = new Koa<AppState>();
  const billing = await createBillingApi({ mock: viaPrism(prismUrl) });
  app.use(async (ctx, next) => {
    ctx.state.requestId = `mock-${Date.now().toString(36)}`;
    await next();
  });
  app.use(corsPolicy(DEFAULT_CORS_ORIGINS));
  app.use(errorResponses(silentLogger));
  app.use(readBodies());
  app.use(billing.middleware);
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.MOCK_REST_PORT ?? 4010);
  const app = await createBillingMock(process.env.PRISM_URL ?? 'http://127.0.0.1:4012');
  app.listen(port, '127.0.0.1', () =>
    console.log(`billing mock on http://127.0.0.1:${port} (/billing/... and unprefixed)`),
  );
}
