import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppOptions } from '../../src/app.js';
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS } from '../../src/config.js';
import { createClient, createWorkspace } from '../../src/db/provision.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { bindListener, serveWith } from '../../src/http/listener.js';
import { startBalanceFold } from '../../src/ledger/accounts/balanceFoldWorker.js';
import { createLogger, silentLogger } from '../../src/observability/log.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { fetchToken } from './token.js';

/** The admin token of test servers started with the sandbox on (`sandbox: { adminToken: ADMIN_TOKEN }`). */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export type TestWorkspace = { workspaceId: string; clientId: string; clientSecret: string; token: string };

export type TestServer = {
  baseUrl: string;
  db: TestDatabase;
  /** A new workspace with one API client and a token obtained from /oauth2/token. */
  workspace(name?: string): Promise<TestWorkspace>;
  close(): Promise<void>;
};

/** The real app on a random loopback port, over a database of its own. */
export async function startTestServer(options: Partial<AppOptions> = {}): Promise<TestServer> {
  const db = await createTestDatabase();
  const log = process.env.TEST_SERVER_LOG ? createLogger('error') : silentLogger;
  const app = await createApp({
    sql: db.sql,
    signingKey: await tokenSigningKey(db.sql),
    tokenTtlSeconds: 3600,
    log,
    ...options,
  });
  // The fold runs beside the requests, as in production, so tests see postings race it.
  const fold = startBalanceFold(db.sql, log, { intervalMs: 50, batchSize: 500 });
  // The production listener and its timeouts (keep-alive above the test clients' own idle time).
  const server: Server = await bindListener(0, '127.0.0.1', {
    keepAliveTimeoutMs: DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
  });
  serveWith(server, app.callback());
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    db,
    async workspace(name = 'Test workspace') {
      const workspaceId = await createWorkspace(db.sql, name);
      const { clientId, clientSecret } = await createClient(db.sql, workspaceId);
      const token = await fetchToken(baseUrl, clientId, clientSecret);
      return { workspaceId, clientId, clientSecret, token };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await fold.stop();
      await db.drop();
    },
  };
}
