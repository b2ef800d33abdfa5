import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

let server: TestServer;
let alice: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.workspace('Alice');
});
afterAll(() => server?.close());

const basic = (text: string) => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

async function tokenRequest(
  authorization: string | undefined,
  body: string,
  contentType = 'application/x-www-form-urlencoded',
) {
  const response = await fetch(`${server.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { ...(authorization ? { authorization } : {}), 'content-type': contentType },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('POST /oauth2/token', () => {
  it('issues a bearer token for the right Basic credentials', async () => {
    const ok = await tokenRequest(
      basic(`${alice.clientId}:${alice.clientSecret}`),
      'grant_type=client_credentials&scope=anything',
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) });
    expect(ok.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['no Authorization header', undefined],
    ['a Bearer header', 'Bearer abc'],
    ['Basic with no colon', basic('just-an-id')],
    ['Basic with an empty client id', basic(`:${'x'}`)],
    ['Basic that is not base64', 'Basic !!!!'],
    ['Basic with padding in the middle', 'Basic YQ==YQ=='],
    ['Basic with bad percent-escapes', basic('client%ZZ:secret')],
    ['Basic with a NUL in the client id', basic('client\u0000:secret')],
    ['Basic with an escaped NUL', basic('client%00:secret')],
    ['Basic with an escaped lone surrogate', basic('client%ED%A0%80:secret')],
    ['Basic with invalid UTF-8', `Basic ${Buffer.from([0x63, 0xff, 0xfe, 0x3a, 0x73]).toString('base64')}`],
    ['a wrong secret', basic(`${'client_000'}:nope`)],
  ])('answers %s with 401 invalid_client in the RFC 6749 shape', async (_label, authorization) => {
    const answer = await tokenRequest(authorization, 'grant_type=client_credentials');
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({
      error: 'invalid_client',
      error_description: expect.any(String),
      code: 'invalid_client',
      message: expect.any(String),
      retryable: false,
    });
    expect(answer.headers.get('www-authenticate')).toBe('Basic realm="tally"');
  });

  it.each([
    ['an unknown field', 'grant_type=client_credentials&colour=red', 'invalid_request'],
    ['an unknown field in bracket form', 'grant_type=client_credentials&a[b]=c', 'invalid_request'],
    ['a repeated field', 'grant_type=client_credentials&grant_type=client_credentials', 'invalid_request'],
    ['a field in array form', 'grant_type[]=client_credentials', 'invalid_request'],
    ['a NUL in scope', 'grant_type=client_credentials&scope=a%00b', 'invalid_request'],
    ['no grant_type', 'scope=x', 'invalid_request'],
    ['another grant type', 'grant_type=password', 'unsupported_grant_type'],
  ])('refuses a form with %s, in the RFC 6749 shape', async (_label, body, error) => {
    const answer = await tokenRequest(basic(`${alice.clientId}:${alice.clientSecret}`), body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error, error_description: expect.any(String), code: error, retryable: false });
  });

  describe('client_secret_post (client_id and client_secret in the form body, RFC 6749 §2.3.1)', () => {
    const form = (fields: Record<string, string>) =>
      new URLSearchParams({ grant_type: 'client_credentials', ...fields }).toString();

    it('issues a token like HTTP Basic does, and the token works', async () => {
      const ok = await tokenRequest(
        undefined,
        form({ client_id: alice.clientId, client_secret: alice.clientSecret, scope: 'x' }),
      );
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, access_token: expect.any(String) });
      expect(ok.headers.get('cache-control')).toBe('no-store');
      const products = await fetch(`${server.baseUrl}/billing/products`, {
        headers: { authorization: `Bearer ${(ok.body as { access_token: string }).access_token}` },
      });
      expect(products.status).toBe(200);
      // Under the /billing prefix too.
      const prefixed = await fetch(`${server.baseUrl}/billing/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ client_id: alice.clientId, client_secret: alice.clientSecret }),
      });
      expect(prefixed.status).toBe(200);
    });

    it.each([
      ['a wrong secret', () => ({ client_id: alice.clientId, client_secret: 'nope' })],
      ['an unknown client', () => ({ client_id: 'client_000', client_secret: 'nope' })],
      ['an empty client id', () => ({ client_id: '', client_secret: 'nope' })],
      ['an empty secret', () => ({ client_id: alice.clientId, client_secret: '' })],
      ['only a client id', () => ({ client_id: alice.clientId })],
    ])('answers %s with 401 invalid_client', async (_label, fields) => {
      const answer = await tokenRequest(undefined, form(fields()));
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ error: 'invalid_client', code: 'invalid_client', retryable: false });
      expect(answer.headers.get('www-authenticate')).toBe('Basic realm="tally"');
    });

    it.each([
      ['a secret without a client id', () => [undefined, { client_secret: alice.clientSecret }]],
      [
        'HTTP Basic and form credentials of different clients',
        () => [basic(`${alice.clientId}:${alice.clientSecret}`), { client_id: 'another', client_secret: 'other' }],
      ],
      [
        'HTTP Basic and the same credentials in the form',
        () => [
          basic(`${alice.clientId}:${alice.clientSecret}`),
          { client_id: alice.clientId, client_secret: alice.clientSecret },
        ],
      ],
      [
        'a Bearer header and form credentials',
        () => ['Bearer abc', { client_id: alice.clientId, client_secret: alice.clientSecret }],
      ],
      ['a NUL in the secret', () => [undefined, { client_id: alice.clientId, client_secret: 'a\u0000b' }]],
      [
        'a repeated secret',
        () => [
          undefined,
          { client_id: alice.clientId, client_secret: alice.clientSecret },
          `&client_secret=${alice.clientSecret}`,
        ],
      ],
    ] as [string, () => [string | undefined, Record<string, string>, string?]][])(
      'refuses %s with 400 invalid_request',
      async (_label, input) => {
        const [authorization, fields, extra = ''] = input();
        const answer = await tokenRequest(authorization, form(fields) + extra);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          error: 'invalid_request',
          code: 'invalid_request',
          error_description: expect.any(String),
          retryable: false,
        });
      },
    );
  });

  it.each([
    ['JSON', 'application/json', '{"grant_type":"client_credentials"}', 415, 'unsupported_media_type'],
    ['malformed JSON', 'application/json', '{"grant_type":', 400, 'malformed_json'],
    [
      'an oversized form',
      'application/x-www-form-urlencoded',
      `grant_type=client_credentials&scope=${'x'.repeat(1_100_000)}`,
      413,
      'payload_too_large',
    ],
  ])('answers a body of %s in the RFC 6749 shape', async (_label, contentType, body, status, code) => {
    const answer = await tokenRequest(basic(`${alice.clientId}:${alice.clientSecret}`), body, contentType);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error: 'invalid_request', error_description: expect.any(String), code });
  });
});
