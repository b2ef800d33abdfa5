import { OpenAPIRouter, type Document } from 'openapi-backend';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/billing/api.js';
import { OpenAPI31Backend } from '../../src/http/openapi31Backend.js';

// The billing router is compiled once from the contract; it must answer exactly what
// openapi-backend's own router answers, for every route of the contract and for paths it lacks.

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

type Answer = { operationId?: string } | { error: string };
function answerOf(route: () => { operationId?: string } | undefined): Answer {
  try {
    return { operationId: route()?.operationId };
  } catch (error) {
    return { error: (error as Error).message.split(':')[0] };
  }
}

describe('the compiled billing router', () => {
  it('matches every request as openapi-backend does: operation, 404 or 405', async () => {
    const definition = loadSpec();
    const compiled = await new OpenAPI31Backend({ definition, validate: false }).init();
    // The reference: openapi-backend's router over the same document, uncompiled.
    const reference = new OpenAPIRouter<Document>({ definition });
    const paths = Object.keys(definition.paths ?? {});
    expect(paths.length).toBeGreaterThanOrEqual(15);
    const requests = [
      ...paths.flatMap((path) => [path.replace(/\{[^}]+\}/g, 'x-1'), path.replace(/\{[^}]+\}/g, 'search')]),
      '/',
      '/nothing-here',
      '/products/a/b/c',
      '/invoices/',
      '/payments/search/extra',
    ];
    let compared = 0;
    for (const path of requests) {
      for (const method of METHODS) {
        const request = { method, path, headers: {}, query: {} };
        expect(
          answerOf(() => compiled.router.matchOperation(request, true)),
          `${method} ${path}`,
        ).toEqual(answerOf(() => reference.matchOperation(request, true)));
        compared++;
      }
    }
    expect(compared).toBe(requests.length * METHODS.length);
  });

  it('finds operations by id without rebuilding the list', async () => {
    const compiled = await new OpenAPI31Backend({ definition: loadSpec(), validate: false }).init();
    const first = compiled.router.getOperations();
    expect(compiled.router.getOperations()).toBe(first);
    expect(compiled.router.getOperation('getProduct')?.path).toBe('/products/{code}');
  });

  it('parses every request of every operation as openapi-backend does', async () => {
    const definition = loadSpec();
    const compiled = await new OpenAPI31Backend({ definition, validate: false }).init();
    const reference = new OpenAPIRouter<Document>({ definition });
    const segments = ['x-1', 'caf%C3%A9', 'a%2Fb', '%F0%9F%A7%BE', 'with%20space', ''];
    const queries: Record<string, string | string[]>[] = [
      {},
      { limit: '10' },
      { cursor: 'abc', status: ['a', 'b'] },
      { empty: '' },
    ];
    const bodies = [undefined, { invoice_id: 'inv-1' }, '{"code":"x"}', 'not json', ''];
    const headers: Record<string, string>[] = [
      { authorization: 'Bearer t', 'content-type': 'application/json' },
      { 'Content-Type': 'application/json', 'X-Request-Id': 'r1' },
      { cookie: 'a=1; b=2' },
    ];
    let compared = 0;
    for (const operation of reference.getOperations()) {
      for (const [i, segment] of segments.entries()) {
        const path = operation.path.replace(/\{[^}]+\}/g, segment);
        const request = {
          method: operation.method.toUpperCase(),
          path: i % 2 ? `${path}?ignored=1` : path,
          query: queries[i % queries.length],
          headers: headers[i % headers.length],
          body: bodies[i % bodies.length],
        };
        const expected = reference.parseRequest(request, operation);
        expect(compiled.router.parseRequest(request, operation), `${operation.operationId} ${path}`).toEqual(expected);
        expect(compiled.router.parseRequest(request)).toEqual(reference.parseRequest(request));
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(15 * segments.length);
  });

  it('gives each parse its own query and headers, as openapi-backend does (validation coerces them in place)', async () => {
    const compiled = await new OpenAPI31Backend({ definition: loadSpec(), validate: false }).init();
    const operation = compiled.router.getOperation('listInvoices')!;
    const request = { method: 'GET', path: '/invoices', query: { status: ['a'] }, headers: { accept: '*/*' } };
    const first = compiled.router.parseRequest(request, operation);
    const second = compiled.router.parseRequest(request, operation);
    expect(first.query).not.toBe(second.query);
    expect(first.query.status).not.toBe(second.query.status);
    expect(first.headers).not.toBe(second.headers);
  });
});
