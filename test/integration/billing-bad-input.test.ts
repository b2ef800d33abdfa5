import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coffeeProduct } from '../support/billingFixtures.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What the billing API answers to input it refuses: a typed 4xx naming each violation, and nothing
// stored. Schema violations, hostile text, bad paths and bodies, unknown routes and parameters.

let server: TestServer;
let alice: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('bad input gets a typed 4xx and changes nothing', () => {
  const invoice = (lineItem: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    invoice_id: 'inv-x',
    line_items: [
      {
        description: 'x',
        product_id: 'coffee',
        type: 'payin',
        user: { external_id: 'u1' },
        price: { amount: '100' },
        ...lineItem,
      },
    ],
    ...extra,
  });

  it.each([
    ['an unknown currency code', invoice({ currency_code: 'XYZ' }), '/body/line_items/0/currency_code'],
    ['a tag key with #', invoice({}, { tags: [{ key: 'a#b', value: 'v' }] }), '/body/tags/0/key'],
    ['a tag value with /', invoice({}, { tags: [{ key: 'k', value: 'a/b' }] }), '/body/tags/0/value'],
    ['a tag key over 50 characters', invoice({}, { tags: [{ key: 'k'.repeat(51), value: 'v' }] }), '/body/tags/0/key'],
    [
      'a tag value over 200 characters',
      invoice({}, { tags: [{ key: 'k', value: 'v'.repeat(201) }] }),
      '/body/tags/0/value',
    ],
    ['quantity 0', invoice({ price: { unit_price: '100', quantity: 0 } }), '/body/line_items/0/price/quantity'],
    [
      'an amount with a fraction',
      invoice({ price: { amount: '10.5' } }),
      '/body/line_items/0/price/amount',
      'invalid_amount',
    ],
    [
      'an amount as a JSON number',
      invoice({ price: { amount: 100 } }),
      '/body/line_items/0/price/amount',
      'invalid_amount',
    ],
    [
      'a user with both id and external_id',
      invoice({ user: { id: 'user_1', external_id: 'u1' } }),
      '/body/line_items/0/user',
    ],
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
    [
      'wrong types',
      { code: 7, description: ['x'], paid_by_roles: 'buyer' },
      ['/body/code', '/body/description', '/body/paid_by_roles'],
    ],
    ['an unknown field', { ...coffeeProduct, code: 'x1', colour: 'red' }, ['/body/colour']],
    [
      'a role reference with both id and name',
      { ...coffeeProduct, code: 'x2', paid_by_roles: [{ id: 'role_1', name: 'buyer' }] },
      ['/body/paid_by_roles/0'],
    ],
  ])('a product with %s → 400 listing every violation', async (_label, body, pointers) => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body });
    expect(response.status).toBe(400);
    const reported = response.body.details.violations.map((v: { pointer: string }) => v.pointer);
    for (const pointer of pointers) expect(reported).toContain(pointer);
    const listed = await rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token });
    expect(listed.body.data.map((p: { code: string }) => p.code)).not.toContain(String(body.code));
  });

  it.each([
    ['a NUL in the code', { ...coffeeProduct, code: 'nul\u0000code' }, '/body/code'],
    [
      'an unpaired surrogate in a role name',
      { ...coffeeProduct, code: 'lone', paid_by_roles: [{ name: 'buyer\ud800' }] },
      '/body/paid_by_roles/0/name',
    ],
    [
      'a reversed surrogate pair in the description',
      { ...coffeeProduct, code: 'rev', description: '\udc00\ud83d' },
      '/body/description',
    ],
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
    const response = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token,
      body: '{"code": "x",',
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'malformed_json', retryable: false });
  });

  it('a body that is not JSON → 415 unsupported_media_type', async () => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token,
      body: 'code=x',
      contentType: 'text/plain',
    });
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('unsupported_media_type');
  });

  it('a body over 1 MiB → 413 payload_too_large', async () => {
    const response = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token,
      body: { ...coffeeProduct, description: 'x'.repeat(1_100_000) },
    });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });

  it('an unknown route → 404, a wrong method → 405, an unknown query parameter → 400', async () => {
    const unknownRoute = await rest(server.baseUrl, 'GET', '/billing/nothing-here', { token: alice.token });
    expect([unknownRoute.status, unknownRoute.body.code]).toEqual([404, 'route_not_found']);
    const wrongMethod = await rest(server.baseUrl, 'DELETE', '/billing/products', { token: alice.token });
    expect([wrongMethod.status, wrongMethod.body.code]).toEqual([405, 'method_not_allowed']);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    const unknownQuery = await rest(server.baseUrl, 'GET', '/billing/products?colour=red', { token: alice.token });
    expect([unknownQuery.status, unknownQuery.body.code]).toEqual([400, 'invalid_request']);
  });

  it('an out-of-range reconciliation_status → 400 naming the query parameter', async () => {
    const response = await rest(server.baseUrl, 'GET', '/billing/transactions?reconciliation_status=maybe', {
      token: alice.token,
    });
    expect(response.status).toBe(400);
    expect(response.body.details.violations.map((v: { pointer: string }) => v.pointer)).toContain(
      '/query/reconciliation_status',
    );
  });
});
