import fs from 'node:fs';
import { OpenAPIBackend, type Context, type Document, type Request } from 'openapi-backend';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadSpec } from '../../src/billing/api.js';
import { SANDBOX_OPENAPI_PATH } from '../../src/http/contracts.js';
import { OpenAPI31Backend } from '../../src/http/openapi31Backend.js';

// The lean dispatch must call the same hook or handler, with the same context, as
// openapi-backend's own handleRequest, for every operation of both contracts: right and wrong
// methods, missing, good, refused and throwing credentials, valid and invalid parameters and bodies.

const CREDENTIALS = [undefined, 'Bearer good', 'Bearer refused', 'Bearer throws', 'Bearer async-good'];
const BODIES: unknown[] = [undefined, {}, { code: 'x', amount: 'ten' }, 'not json', '{"code":"x"}', null];

type Snapshot = { hook: string; context: unknown };

async function backendOf(definition: Document): Promise<OpenAPI31Backend> {
  const backend = new OpenAPI31Backend({ definition, validate: true });
  const snapshot = (hook: string) => (c: Context) => ({ hook, context: snapshotOf(c) });
  const check = (c: Context) => {
    const credential = String(c.request.headers.authorization ?? '');
    if (credential === 'Bearer throws') throw new Error('refused by throwing');
    if (credential === 'Bearer async-good') return Promise.resolve({ user: 'a' });
    return credential === 'Bearer good';
  };
  for (const scheme of Object.keys(definition.components?.securitySchemes ?? {})) {
    backend.registerSecurityHandler(scheme, check);
  }
  backend.register({
    notFound: snapshot('notFound'),
    methodNotAllowed: snapshot('methodNotAllowed'),
    unauthorizedHandler: snapshot('unauthorized'),
    validationFail: snapshot('validationFail'),
    postSecurityHandler: (c: Context) => void (c.request.headers['x-seen'] = 'post-security'),
  });
  for (const operation of Object.values(definition.paths ?? {}).flatMap((item) => Object.values(item ?? {}))) {
    const operationId = (operation as { operationId?: string }).operationId;
    if (operationId) backend.register(operationId, snapshot(`operation ${operationId}`));
  }
  return backend.init();
}

function snapshotOf(c: Context): unknown {
  return structuredClone({
    operationId: c.operation?.operationId,
    request: c.request,
    security: c.security,
    validation: c.validation && { valid: c.validation.valid, errors: c.validation.errors },
  });
}

function requestsOf(backend: OpenAPI31Backend): Request[] {
  const requests: Request[] = [];
  for (const operation of backend.router.getOperations()) {
    const path = operation.path.replace(/\{[^}]+\}/g, 'x-1');
    const query = Object.fromEntries(
      (operation.parameters ?? [])
        .filter((parameter) => 'in' in parameter && parameter.in === 'query')
        .map((parameter) => [(parameter as { name: string }).name, 'a']),
    );
    for (const [i, authorization] of CREDENTIALS.entries()) {
      for (const [j, body] of BODIES.entries()) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (authorization) headers.authorization = authorization;
        const method = (i + j) % 4 === 3 ? 'DELETE' : operation.method.toUpperCase();
        requests.push({ method, path, query: j % 2 ? query : {}, headers, body });
      }
    }
  }
  requests.push({ method: 'GET', path: '/no/such/route', query: {}, headers: {} });
  return requests;
}

async function answerOf(handle: () => Promise<unknown>): Promise<Snapshot | { threw: string }> {
  try {
    return (await handle()) as Snapshot;
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** Neither contract has an array query parameter yet, whose lone value validation turns into an array. */
const arrayQueryContract = (): Document => ({
  openapi: '3.1.0',
  info: { title: 'array query', version: '1' },
  security: [{ bearer: [] }],
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/items/{code}': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'code', in: 'path', required: true, schema: { type: 'string', maxLength: 3 } },
          { name: 'code', in: 'query', schema: { type: 'array', items: { type: 'string' }, maxItems: 1 } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        responses: { 200: { description: 'ok' } },
      },
    },
  },
});

describe('the lean request dispatch', () => {
  const contracts: [string, () => Document][] = [
    ['billing', loadSpec],
    ['sandbox', () => parseYaml(fs.readFileSync(SANDBOX_OPENAPI_PATH, 'utf8')) as Document],
    ['array-query', arrayQueryContract],
  ];
  for (const [name, load] of contracts) {
    it(`answers every request of the ${name} contract as openapi-backend's handleRequest does`, async () => {
      const backend = await backendOf(load());
      const hooks = new Set<string>();
      let compared = 0;
      for (const request of requestsOf(backend)) {
        const lean = await answerOf(() => backend.handleRequest(structuredClone(request)));
        const reference = await answerOf(() =>
          OpenAPIBackend.prototype.handleRequest.call(backend, structuredClone(request)),
        );
        expect(lean, `${request.method} ${request.path} ${JSON.stringify(request.body)}`).toEqual(reference);
        if ('hook' in lean) hooks.add(lean.hook.split(' ')[0]);
        compared++;
      }
      // The comparison reached every kind of answer, not just one.
      expect([...hooks].sort()).toEqual([
        'methodNotAllowed',
        'notFound',
        'operation',
        'unauthorized',
        'validationFail',
      ]);
      expect(compared).toBeGreaterThan(20);
    });
  }
});
