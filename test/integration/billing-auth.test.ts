import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/core/tokens.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { coffeeProduct } from '../support/billingFixtures.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Who may call the APIs and what they see: bearer tokens and their RFC 6750 challenges on REST and
// GraphQL, and workspaces that never see each other's data.

let server: TestServer;
let alice: TestWorkspace;
let bob: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
  bob = await server.workspace('Bob');
});
afterAll(() => server?.close());

const INVALID_TOKEN =
  'Bearer error="invalid_token", error_description="The access token is malformed or was not issued by this server"';
const EXPIRED_TOKEN = 'Bearer error="invalid_token", error_description="The access token expired"';

/** A token of the workspace's client, signed by the server, that expired a minute ago. */
async function expiredToken(workspace: TestWorkspace): Promise<string> {
  const claims = {
    workspaceId: workspace.workspaceId,
    clientId: workspace.clientId,
    expiresAt: Math.floor(Date.now() / 1000) - 60,
  };
  return issueToken(claims, await tokenSigningKey(server.db.sql));
}

describe('authentication', () => {
  it.each([
    ['no token', {}, 'Bearer'],
    ['basic credentials instead of a token', { authorization: 'Basic dXNlcjpwYXNz' }, 'Bearer'],
    ['a malformed token', { authorization: 'Bearer nonsense' }, INVALID_TOKEN],
    ['a bearer header without a token', { authorization: 'Bearer' }, INVALID_TOKEN],
    [
      'a token signed by someone else',
      { authorization: 'Bearer tly1.WyJ3c18xIiwiYyIsOTk5OTk5OTk5OV0.AAAA' },
      INVALID_TOKEN,
    ],
  ])(
    'answers 401 unauthorized to %s, under both prefixes, with the RFC 6750 challenge',
    async (_label, headers, challenge) => {
      for (const path of ['/billing/products', '/products']) {
        const response = await fetch(`${server.baseUrl}${path}`, { headers });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe(challenge);
        expect(await response.json()).toMatchObject({ code: 'unauthorized', retryable: false });
      }
    },
  );

  it('answers an expired token 401 token_expired with error="invalid_token", on REST and GraphQL', async () => {
    const token = await expiredToken(alice);
    for (const path of ['/billing/products', '/products']) {
      const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(EXPIRED_TOKEN);
      expect(response.headers.get('x-should-retry')).toBe('false');
      expect(await response.json()).toMatchObject({
        code: 'token_expired',
        retryable: false,
        message: expect.stringContaining('expired'),
      });
    }
    const graphql = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workspace { id } }' }),
    });
    expect(graphql.status).toBe(401);
    expect(graphql.headers.get('www-authenticate')).toBe(EXPIRED_TOKEN);
    expect(await graphql.json()).toMatchObject({
      errors: [{ extensions: { code: 'token_expired', retryable: false } }],
    });
    // The same token, unexpired, is accepted: only the time differs.
    const fresh = issueToken(
      { workspaceId: alice.workspaceId, clientId: alice.clientId, expiresAt: Math.floor(Date.now() / 1000) + 60 },
      await tokenSigningKey(server.db.sql),
    );
    expect(
      (await fetch(`${server.baseUrl}/billing/products`, { headers: { authorization: `Bearer ${fresh}` } })).status,
    ).toBe(200);
  });

  it('answers GraphQL without a token or with a bad one with the same challenges', async () => {
    for (const [authorization, challenge] of [
      [undefined, 'Bearer'],
      ['Bearer nonsense', INVALID_TOKEN],
    ] as const) {
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
    expect(
      (await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: coffeeProduct })).status,
    ).toBe(201);
    expect((await rest(server.baseUrl, 'GET', '/billing/products/coffee', { token: bob.token })).status).toBe(404);
    expect((await rest(server.baseUrl, 'GET', '/billing/products', { token: bob.token })).body.data).toEqual([]);
    // The same code is free in another workspace, and Bob's roles are his own.
    const own = await rest(server.baseUrl, 'POST', '/billing/products', { token: bob.token, body: coffeeProduct });
    expect(own.status).toBe(201);
    const alicesRoleId = (await rest(server.baseUrl, 'GET', '/billing/products/coffee', { token: alice.token })).body
      .data.paid_by_roles[0].id;
    expect(own.body.data.paid_by_roles[0].id).not.toBe(alicesRoleId);
    // Referring to Alice's role id from Bob's workspace is an unknown role, not a leak.
    const borrowed = await rest(server.baseUrl, 'POST', '/billing/products', {
      token: bob.token,
      body: { code: 'tea', description: 'Tea', paid_by_roles: [{ id: alicesRoleId }] },
    });
    expect(borrowed.status).toBe(400);
    expect(borrowed.body).toMatchObject({
      code: 'unknown_role',
      details: { violations: [{ pointer: '/body/paid_by_roles/0/id' }] },
    });
  });
});
