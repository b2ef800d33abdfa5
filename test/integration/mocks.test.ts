import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBillingMock } from '../../src/mock/billingMock.js';
import { createMockServer } from '../../src/mock/ledgerMock.js';
import { loadSpec } from '../../src/conformance/billingExamples.js';
import { freePort } from '../support/ports.js';
import { startTestServer } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('make mock', () => {
  it('the GraphQL mock answers SDK documents from the SDL, mutations with their success type', async () => {
    const server = createMockServer(fs.readFileSync(path.join(root, 'spec/ledger.graphql'), 'utf8')).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `mutation { createLedger(ik: "a", ledger: { name: "A" }) {
            __typename ... on CreateLedgerResult { isIkReplay ledger { id ik name created balanceUTCOffset } } } }`,
        }),
      });
      const body = await response.json();
      expect(body.data.createLedger.__typename).toBe('CreateLedgerResult');
      expect(body.data.createLedger.ledger.balanceUTCOffset).toMatch(/^[+-]\d{2}:\d{2}$/);
    } finally {
      server.close();
    }
  });

  it('the GraphQL mock refuses a bad request with the status and extensions.code the server answers', async () => {
    const server = await startTestServer();
    const { token } = await server.workspace('Mock parity');
    const mock = createMockServer(fs.readFileSync(path.join(root, 'spec/ledger.graphql'), 'utf8')).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((resolve) => mock.once('listening', resolve));
    const mockUrl = `http://127.0.0.1:${(mock.address() as AddressInfo).port}`;
    type Init = { method?: string; type?: string; body?: string; search?: string };
    const post = (query: string, variables?: Record<string, unknown>): Init => ({
      body: JSON.stringify({ query, variables }),
    });
    const deep = `{ ledgers { nodes { ${'ledgerAccounts { nodes { parentLedgerAccount { '.repeat(8)}id${' } } }'.repeat(8)} } } }`;
    const cases: [string, Init][] = [
      ['a syntax error', post('{ workspace { id }')],
      ['an unknown field', post('{ workspace { nope } }')],
      ['an Int argument that overflows', post('{ schema(schema: { key: "s", version: 99999999999 }) { key } }')],
      ['an unknown enum value', post('{ ledgers(filter: { type: { equalTo: triple } }) { nodes { id } } }')],
      [
        'a variable of the wrong type',
        post('query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { id } }', { ik: 5 }),
      ],
      [
        'a malformed scalar literal',
        post('{ ledgerAccount(ledgerAccount: { ledger: { ik: "l" }, path: "bank" }) { ownBalance(at: "yesterday") } }'),
      ],
      ['a missing variable', post('query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { id } }')],
      [
        'an unknown operation name',
        {
          body: JSON.stringify({
            query: 'query a { workspace { id } } query b { workspace { id } }',
            operationName: 'c',
          }),
        },
      ],
      ['two operations and no name', post('query a { workspace { id } } query b { workspace { id } }')],
      ['a NUL in a string literal', post('{ ledger(ledger: { ik: "a\\u0000b" }) { id } }')],
      [
        'a NUL in a variable',
        post('query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { id } }', { ik: 'a\u0000b' }),
      ],
      ['a document nested too deep', post(deep)],
      ['no query', { body: '{"variables":{}}' }],
      ['a batched array', { body: '[{"query":"{ workspace { id } }"}]' }],
      ['variables that are not an object', { body: '{"query":"{ workspace { id } }","variables":[1]}' }],
      ['malformed JSON', { body: '{"query": "{ workspace' }],
      ['a text/plain body', { type: 'text/plain', body: '{ workspace { id } }' }],
      ['PUT', { method: 'PUT', body: '{"query":"{ workspace { id } }"}' }],
      [
        'a mutation over GET',
        {
          method: 'GET',
          search: `?query=${encodeURIComponent('mutation { deleteLedger(ledger: { ik: "x" }) { __typename } }')}`,
        },
      ],
    ];
    const answer = async (base: string, init: Init, accept: string) => {
      const response = await fetch(`${base}/graphql${init.search ?? ''}`, {
        method: init.method ?? 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          accept,
          ...(init.body !== undefined ? { 'content-type': init.type ?? 'application/json' } : {}),
        },
        body: init.body,
      });
      const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
      return { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code) };
    };
    try {
      for (const [label, init] of cases) {
        for (const accept of ['application/json', 'application/graphql-response+json']) {
          const [real, mocked] = [await answer(server.baseUrl, init, accept), await answer(mockUrl, init, accept)];
          expect(real.codes.length, `${label}: the server refuses it`).toBeGreaterThan(0);
          expect(
            real.codes.every((code) => typeof code === 'string'),
            `${label}: the server codes every error`,
          ).toBe(true);
          expect(mocked, `${label} (Accept: ${accept})`).toEqual(real);
        }
      }
    } finally {
      mock.close();
      await server.close();
    }
  }, 60_000);

  it('the billing mock refuses like the server and answers valid requests with the named examples, under both prefixes', async () => {
    const prismPort = await freePort();
    const prism = spawn(
      path.join(root, 'node_modules/.bin/prism'),
      ['mock', '-h', '127.0.0.1', '-p', String(prismPort), 'spec/billing.openapi.yaml'],
      { cwd: root, stdio: 'ignore' },
    );
    const mock = (await createBillingMock(`http://127.0.0.1:${prismPort}`)).listen(0, '127.0.0.1');
    await new Promise((resolve) => mock.once('listening', resolve));
    const base = `http://127.0.0.1:${(mock.address() as AddressInfo).port}`;
    const auth = { authorization: 'Bearer anything', 'content-type': 'application/json' };
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${prismPort}/healthz`)).ok);
      const spec = loadSpec();
      for (const prefix of ['/billing', '']) {
        const response = await fetch(`${base}${prefix}/products`, { headers: auth });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual(
          spec.paths['/products'].get.responses['200'].content['application/json'].examples.catalogue.value,
        );
      }
      const missing = await fetch(`${base}/billing/invoices/inv-9999`, {
        headers: { ...auth, prefer: 'code=404, example=missing' },
      });
      expect([missing.status, await missing.json()]).toEqual([
        404,
        spec.components.responses.InvoiceNotFound.content['application/json'].examples.missing.value,
      ]);

      const noToken = await fetch(`${base}/billing/products`);
      expect(noToken.status).toBe(401);
      expect(await noToken.json()).toMatchObject({ code: 'unauthorized', retryable: false });
      const invalid = await fetch(`${base}/billing/invoices`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ invoice_id: 'x', line_items: [], colour: 'red' }),
      });
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({
        code: 'invalid_request',
        details: { violations: [{ pointer: '/body/colour' }] },
      });
      const route = await fetch(`${base}/billing/nowhere`, { headers: auth });
      expect([route.status, (await route.json()).code]).toEqual([404, 'route_not_found']);
    } finally {
      mock.close();
      prism.kill('SIGKILL');
    }
  }, 60_000);
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for the mock');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
