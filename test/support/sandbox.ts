import { afterAll, beforeAll, expect } from 'vitest';
import { ADMIN_TOKEN, startTestServer, type TestServer } from './server.js';
import { fetchToken } from './token.js';

export type SandboxWorkspace = { workspaceId: string; clientId: string; clientSecret: string; token: string };

/** The sandbox admin API of a test server, called with its admin token (or another, to test refusals). */
export function sandboxAdmin(baseUrl: string, token = ADMIN_TOKEN) {
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/sandbox${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
  return {
    call,
    /** A workspace made through the API, with a token of its client. */
    async workspace(name = 'sandbox test'): Promise<SandboxWorkspace> {
      const created = await call('POST', '/workspaces', { name });
      expect(created.status).toBe(201);
      const { workspace, client } = created.body.data;
      const clientToken = await fetchToken(baseUrl, client.client_id, client.client_secret);
      return {
        workspaceId: workspace.id,
        clientId: client.client_id,
        clientSecret: client.client_secret,
        token: clientToken,
      };
    },
  };
}

export type SandboxTestServer = { server: TestServer; admin: ReturnType<typeof sandboxAdmin> };

/** A test server with the sandbox on, started before the file's tests and closed after them. */
export function sandboxServerForFile(): SandboxTestServer {
  const handle = {} as SandboxTestServer;
  beforeAll(async () => {
    handle.server = await startTestServer({ sandbox: { adminToken: ADMIN_TOKEN } });
    handle.admin = sandboxAdmin(handle.server.baseUrl);
  });
  afterAll(() => handle.server?.close());
  return handle;
}
