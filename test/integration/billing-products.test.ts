import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coffeeProduct } from '../support/billingFixtures.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Billing products: roles created and reused by name, creates replayed by code and body, and one
// product per code however the creates race.

let server: TestServer;
let alice: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

describe('products', () => {
  it('creates roles on first use by name, reuses them, and keeps the given order', async () => {
    const carol = await server.workspace('Carol');
    const first = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: carol.token,
      body: { code: 'a', description: 'A', paid_by_roles: [{ name: 'buyer' }, { name: 'agent' }, { name: 'buyer' }] },
    });
    expect(first.body.data.paid_by_roles.map((r: { name: string }) => r.name)).toEqual(['buyer', 'agent']);
    expect(first.body.data.paid_to_roles).toEqual([]);
    const buyerId = first.body.data.paid_by_roles[0].id;
    const second = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: carol.token,
      body: { code: 'b', description: 'B', paid_to_roles: [{ id: buyerId }] },
    });
    expect(second.body.data.paid_to_roles).toEqual([{ id: buyerId, name: 'buyer' }]);
  });

  it('replays a create with the same code and body (200, the stored product), under both prefixes', async () => {
    const body = { ...coffeeProduct, code: 'replayed', paid_by_roles: [{ name: 'buyer' }, { name: 'new-role' }] };
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
    await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token,
      body: { ...coffeeProduct, code: 'dup' },
    });
    const before = await rest(server.baseUrl, 'GET', '/billing/products/dup', { token: alice.token });
    for (const other of [
      { ...coffeeProduct, code: 'dup', description: 'Other coffee' },
      { ...coffeeProduct, code: 'dup', paid_to_roles: [{ name: 'dup-only-role' }] },
      { code: 'dup', description: coffeeProduct.description, paid_by_roles: coffeeProduct.paid_by_roles },
    ]) {
      const again = await rest(server.baseUrl, 'POST', '/products', { token: alice.token, body: other });
      expect(again.status).toBe(409);
      expect(again.headers.get('x-should-retry')).toBe('false');
      expect(again.body).toMatchObject({ code: 'product_code_taken', retryable: false });
    }
    expect((await rest(server.baseUrl, 'GET', '/billing/products/dup', { token: alice.token })).body).toEqual(
      before.body,
    );
    // The refused create named a new role: it was not created.
    const roles = (await rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token })).body.data.flatMap(
      (p: { paid_to_roles: { name: string }[] }) => p.paid_to_roles.map((r) => r.name),
    );
    expect(roles).not.toContain('dup-only-role');
  });

  it('checks the code before the roles: an existing code with an unknown role id is 409', async () => {
    await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token,
      body: { ...coffeeProduct, code: 'first-key' },
    });
    const response = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: alice.token,
      body: { ...coffeeProduct, code: 'first-key', paid_to_roles: [{ id: 'role_01m6dgxjc0r4pdzqbshpw618st' }] },
    });
    expect([response.status, response.body.code]).toEqual([409, 'product_code_taken']);
  });

  it('creates exactly one product when the same code races: identical bodies replay, another body is refused', async () => {
    const same = await Promise.all(
      Array.from({ length: 6 }, () =>
        rest(server.baseUrl, 'POST', '/billing/products', {
          token: alice.token,
          body: { ...coffeeProduct, code: 'race' },
        }),
      ),
    );
    expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(same.map((r) => r.body.data.id)).size).toBe(1);
    const mixed = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        rest(server.baseUrl, 'POST', '/billing/products', {
          token: alice.token,
          body: { ...coffeeProduct, code: 'race-2', description: `Coffee ${i % 2}` },
        }),
      ),
    );
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
