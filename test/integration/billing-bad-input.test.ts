import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/core/tokens.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

let server: TestServer;
let alice: TestWorkspace;
let bob: TestWorkspace;

const coffee = { code: 'coffee', description: 'Coffee', paid_by_roles: [{ name: 'buyer' }], paid_to_roles: [{ name: 'seller' }] };

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  bob = await server.workspace('Bob');
});
afterAll(() => server?.close());

const INVALID_TOKEN = 'Bearer error="invalid_token", error_description="The access token is malformed or was not issued by this server"';
const EXPIRED_TOKEN = 'Bearer error="invalid_token", error_description="The access token expired"';

/** A token of the workspace's client, signed by the server, that expired a minute ago. */
async function expiredToken(workspace: TestWorkspace): Promise<string> {
  const claims = { workspaceId: workspace.workspaceId, clientId: workspace.clientId, expiresAt: Math.floor(Date.now() / 1000) - 60 };
  return issueToken(claims, await tokenSigningKey(server.db.sql));
}

describe('authentication', () => {
  it.each([
    ['no token', {}, 'Bearer'],
    ['basic credentials instead of a token', { authorization: 'Basic dXNlcjpwYXNz' }, 'Bearer'],
    ['a malformed token', { authorization: 'Bearer nonsense' }, INVALID_TOKEN],
    ['a bearer header without a token', { authorization: 'Bearer' }, INVALID_TOKEN],
    ['a token signed by someone else', { authorization: 'Bearer tly1.WyJ3c18xIiwiYyIsOTk5OTk5OTk5OV0.AAAA' }, INVALID_TOKEN],
  ])('answers 401 unauthorized to %s, under both prefixes, with the RFC 6750 challenge', async (_label, headers, challenge) => {
    for (const path of ['/billing/products', '/products']) {
      const response = await fetch(`${server.baseUrl}${path}`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      expect(await response.json()).toMatchObject({ code: 'unauthorized', retryable: false });
    }
  });

  it('answers an expired token 401 token_expired with error="invalid_token", on REST and GraphQL', async () => {
    const token = await expiredToken(alice);
    for (const path of ['/billing/products', '/products']) {
      const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(EXPIRED_TOKEN);
      expect(response.headers.get('x-should-retry')).toBe('false');
      expect(await response.json()).toMatchObject({ code: 'token_expired', retryable: false, message: expect.stringContaining('expired') });
    }
    const graphql = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workspace { id } }' }),
    });
    expect(graphql.status).toBe(401);
    expect(graphql.headers.get('www-authenticate')).toBe(EXPIRED_TOKEN);
    expect(await graphql.json()).toMatchObject({ errors: [{ extensions: { code: 'token_expired', retryable: false } }] });
    // The same token, unexpired, is accepted: only the time differs.
    const fresh = issueToken({ workspaceId: alice.workspaceId, clientId: alice.clientId, expiresAt: Math.floor(Date.now() / 1000) + 60 },
      await tokenSigningKey(server.db.sql));
    expect((await fetch(`${server.baseUrl}/billing/products`, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(200);
  });

  it('answers GraphQL without a token or with a bad one with the same challenges', async () => {
    for (const [authorization, challenge] of [[undefined, 'Bearer'], ['Bearer nonsense', INVALID_TOKEN]] as const) {
      const response = await fetch(`${server.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ query: '{ workspace { id } }' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(challenge);
      expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'unauthorized' } }] });
    }
  });

  it('checks the caller before the body: no token and malformed JSON is a 401', async () => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', { body: '{"code":' });
    expect([response.status, response.body.code]).toEqual([401, 'unauthorized']);
    const unknownRoute = await rest(server.baseUrl, 'POST', '/billing/nowhere', { body: '{"code":' });
    expect([unknownRoute.status, unknownRoute.body.code]).toEqual([404, 'route_not_found']);
  });

  it('issues a token only for the right secret', async () => {
    const wrong = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${alice.clientId}:wrong`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client', code: 'invalid_client' });
  });
});

describe('tenancy', () => {
  it("never lets one workspace read or take another's products", async () => {
    expect((await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: coffee })).status).toBe(201);
    expect((await rest(server.baseUrl, 'GET', '/billing/products/coffee', { token: bob.token })).status).toBe(404);
    expect((await rest(server.baseUrl, 'GET', '/billing/products', { token: bob.token })).body.data).toEqual([]);
    // The same code is free in another workspace, and Bob's roles are his own.
    const own = await rest(server.baseUrl, 'POST', '/billing/products', { token: bob.token, body: coffee });
    expect(own.status).toBe(201);
    const alicesRoleId = (await rest(server.baseUrl, 'GET', '/billing/products/coffee', { token: alice.token })).body.data.paid_by_roles[0].id;
    expect(own.body.data.paid_by_roles[0].id).not.toBe(alicesRoleId);
    // Referring to Alice's role id from Bob's workspace is an unknown role, not a leak.
    const borrowed = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: bob.token, body: { code: 'tea', description: 'Tea', paid_by_roles: [{ id: alicesRoleId }] },
    });
    expect(borrowed.status).toBe(400);
    expect(borrowed.body).toMatchObject({ code: 'unknown_role', details: { violations: [{ pointer: '/body/paid_by_roles/0/id' }] } });
  });
});

describe('products', () => {
  it('creates roles on first use by name, reuses them, and keeps the given order', async () => {
    const carol = await server.workspace('Carol');
    const first = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: carol.token, body: { code: 'a', description: 'A', paid_by_roles: [{ name: 'buyer' }, { name: 'agent' }, { name: 'buyer' }] },
    });
    expect(first.body.data.paid_by_roles.map((r: { name: string }) => r.name)).toEqual(['buyer', 'agent']);
    expect(first.body.data.paid_to_roles).toEqual([]);
    const buyerId = first.body.data.paid_by_roles[0].id;
    const second = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: carol.token, body: { code: 'b', description: 'B', paid_to_roles: [{ id: buyerId }] },
    });
    expect(second.body.data.paid_to_roles).toEqual([{ id: buyerId, name: 'buyer' }]);
  });

  it('replays a create with the same code and body (200, the stored product), under both prefixes', async () => {
    const body = { ...coffee, code: 'replayed', paid_by_roles: [{ name: 'buyer' }, { name: 'new-role' }] };
    const first = await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body });
    expect(first.status).toBe(201);
    // Key order is not significant; the answer is the product as stored, nothing is created again.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    for (const path of ['/billing/products', '/products']) {
      const again = await rest(server.baseUrl, 'POST', path, { token: alice.token, body: reordered });
      expect([again.status, again.body]).toEqual([200, first.body]);
    }
    const listed = (await rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token })).body.data;
    expect(listed.filter((p: { code: string }) => p.code === 'replayed')).toEqual([first.body.data]);
  });

  it('answers the same code with another body 409 product_code_taken that the SDKs will not retry, changing nothing', async () => {
    await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: { ...coffee, code: 'dup' } });
    const before = await rest(server.baseUrl, 'GET', '/billing/products/dup', { token: alice.token });
    for (const other of [
      { ...coffee, code: 'dup', description: 'Other coffee' },
      { ...coffee, code: 'dup', paid_to_roles: [{ name: 'dup-only-role' }] },
      { code: 'dup', description: coffee.description, paid_by_roles: coffee.paid_by_roles },
    ]) {
      const again = await rest(server.baseUrl, 'POST', '/products', { token: alice.token, body: other });
      expect(again.status).toBe(409);
      expect(again.headers.get('x-should-retry')).toBe('false');
      expect(again.body).toMatchObject({ code: 'product_code_taken', retryable: false });
    }
    expect((await rest(server.baseUrl, 'GET', '/billing/products/dup', { token: alice.token })).body).toEqual(before.body);
    // The refused create named a new role: it was not created.
    const roles = (await rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token })).body.data
      .flatMap((p: { paid_to_roles: { name: string }[] }) => p.paid_to_roles.map((r) => r.name));
    expect(roles).not.toContain('dup-only-role');
  });

  it('checks the code before the roles: an existing code with an unknown role id is 409', async () => {
    await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: { ...coffee, code: 'first-key' } });
    const response = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token, body: { ...coffee, code: 'first-key', paid_to_roles: [{ id: 'role_01m6dgxjc0r4pdzqbshpw618st' }] },
    });
    expect([response.status, response.body.code]).toEqual([409, 'product_code_taken']);
  });

  it('creates exactly one product when the same code races: identical bodies replay, another body is refused', async () => {
    const same = await Promise.all(Array.from({ length: 6 }, () =>
      rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: { ...coffee, code: 'race' } })));
    expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(same.map((r) => r.body.data.id)).size).toBe(1);
    const mixed = await Promise.all(Array.from({ length: 6 }, (_, i) =>
      rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: { ...coffee, code: 'race-2', description: `Coffee ${i % 2}` } })));
    const created = mixed.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    mixed.forEach((r, i) => {
      if (`Coffee ${i % 2}` === created[0].body.data.description) {
        expect([200, 201]).toContain(r.status);
        expect(r.body.data).toEqual(created[0].body.data);
      } else {
        expect([r.status, r.body.code]).toEqual([409, 'product_code_taken']);
      }
    });
    expect(mixed.filter((r) => r.status === 409)).toHaveLength(3);
  });
});

describe('bad input gets a typed 4xx and changes nothing', () => {
  const invoice = (lineItem: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    invoice_id: 'inv-x',
    line_items: [{ description: 'x', product_id: 'coffee', type: 'payin', user: { external_id: 'u1' }, price: { amount: '100' }, ...lineItem }],
    ...extra,
  });

  it.each([
    ['an unknown currency code', invoice({ currency_code: 'XYZ' }), '/body/line_items/0/currency_code'],
    ['a tag key with #', invoice({}, { tags: [{ key: 'a#b', value: 'v' }] }), '/body/tags/0/key'],
    ['a tag value with /', invoice({}, { tags: [{ key: 'k', value: 'a/b' }] }), '/body/tags/0/value'],
    ['a tag key over 50 characters', invoice({}, { tags: [{ key: 'k'.repeat(51), value: 'v' }] }), '/body/tags/0/key'],
    ['a tag value over 200 characters', invoice({}, { tags: [{ key: 'k', value: 'v'.repeat(201) }] }), '/body/tags/0/value'],
    ['quantity 0', invoice({ price: { unit_price: '100', quantity: 0 } }), '/body/line_items/0/price/quantity'],
    ['an amount with a fraction', invoice({ price: { amount: '10.5' } }), '/body/line_items/0/price/amount', 'invalid_amount'],
    ['an amount as a JSON number', invoice({ price: { amount: 100 } }), '/body/line_items/0/price/amount', 'invalid_amount'],
    ['a user with both id and external_id', invoice({ user: { id: 'user_1', external_id: 'u1' } }), '/body/line_items/0/user'],
  ])('%s → 400 naming %s', async (_label, body, pointer, code = 'invalid_request') => {
    const response = await rest(server.baseUrl, 'POST', '/billing/invoices', { token: alice.token, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    const reported = response.body.details.violations.map((v: { pointer: string }) => v.pointer);
    expect(reported).toContain(pointer);
    // Only the form the caller used is reported on: no noise about the earlier form's fields.
    expect(reported).not.toContain('/body/invoiceId');
  });

  it.each([
    ['wrong types', { code: 7, description: ['x'], paid_by_roles: 'buyer' }, ['/body/code', '/body/description', '/body/paid_by_roles']],
    ['an unknown field', { ...coffee, code: 'x1', colour: 'red' }, ['/body/colour']],
    ['a role reference with both id and name', { ...coffee, code: 'x2', paid_by_roles: [{ id: 'role_1', name: 'buyer' }] }, ['/body/paid_by_roles/0']],
  ])('a product with %s → 400 listing every violation', async (_label, body, pointers) => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body });
    expect(response.status).toBe(400);
    const reported = response.body.details.violations.map((v: { pointer: string }) => v.pointer);
    for (const pointer of pointers) expect(reported).toContain(pointer);
    const listed = await rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token });
    expect(listed.body.data.map((p: { code: string }) => p.code)).not.toContain('x1');
  });

  it.each([
    ['a NUL in the code', { ...coffee, code: 'nul\u0000code' }, '/body/code'],
    ['an unpaired surrogate in a role name', { ...coffee, code: 'lone', paid_by_roles: [{ name: 'buyer\ud800' }] }, '/body/paid_by_roles/0/name'],
    ['a reversed surrogate pair in the description', { ...coffee, code: 'rev', description: '\udc00\ud83d' }, '/body/description'],
  ])('%s → 400 pointing at it, nothing stored', async (_label, body, pointer) => {
    for (const prefix of ['/billing', '']) {
      // JSON.stringify escapes lone surrogates as \uXXXX, exactly as a hostile client would send them.
      const response = await rest(server.baseUrl, 'POST', `${prefix}/products`, { token: alice.token, body });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', details: { violations: [{ pointer }] } });
    }
    const listed = await rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token });
    expect(listed.body.data.map((p: { code: string }) => p.code)).not.toContain(body.code);
  });

  it('a NUL or lone surrogate in a path parameter → 400, not a lookup', async () => {
    for (const path of ['/billing/products/a%00b', '/products/%00']) {
      const response = await rest(server.baseUrl, 'GET', path, { token: alice.token });
      expect([response.status, response.body.code]).toEqual([400, 'invalid_request']);
      expect(response.body.details.violations[0].pointer).toMatch(/^\/path\//);
    }
  });

  it('a path that is not valid percent-encoding → 400', async () => {
    for (const path of ['/billing/products/%E0%A4%A', '/products/%']) {
      const response = await rest(server.baseUrl, 'GET', path, { token: alice.token });
      expect([response.status, response.body.code]).toEqual([400, 'invalid_request']);
    }
  });

  it('malformed JSON → 400 malformed_json', async () => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: '{"code": "x",' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'malformed_json', retryable: false });
  });

  it('a body that is not JSON → 415 unsupported_media_type', async () => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: 'code=x', contentType: 'text/plain' });
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('unsupported_media_type');
  });

  it('a body over 1 MiB → 413 payload_too_large', async () => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token, body: { ...coffee, description: 'x'.repeat(1_100_000) },
    });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });

  it('an unknown route → 404, a wrong method → 405, an unknown query parameter → 400', async () => {
    expect((await rest(server.baseUrl, 'GET', '/billing/nothing-here', { token: alice.token })).body.code).toBe('route_not_found');
    const wrongMethod = await rest(server.baseUrl, 'DELETE', '/billing/products', { token: alice.token });
    expect([wrongMethod.status, wrongMethod.body.code]).toEqual([405, 'method_not_allowed']);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    const unknownQuery = await rest(server.baseUrl, 'GET', '/billing/products?colour=red', { token: alice.token });
    expect([unknownQuery.status, unknownQuery.body.code]).toEqual([400, 'invalid_request']);
  });

  it('an out-of-range reconciliation_status → 400 naming the query parameter', async () => {
    const response = await rest(server.baseUrl, 'GET', '/billing/transactions?reconciliation_status=maybe', { token: alice.token });
    expect(response.status).toBe(400);
    expect(response.body.details.violations.map((v: { pointer: string }) => v.pointer)).toContain('/query/reconciliation_status');
  });
});

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
      const socket = net.connect(Number(port), hostname, () => socket.write('GET /billing/products HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'invalid_request', retryable: false });
  });
});
