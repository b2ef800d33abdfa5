import './productionMode.js';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { retireSandboxClocks } from './db/sandbox/clocks.js';
import { EmbeddedBusyError } from './db/embedded.js';
import { UnknownMigrationsError } from './db/migrate.js';
import { ensureBootstrapClient, ensureDevelopmentClient } from './db/provision.js';
import { tokenSigningKey } from './db/workspaces.js';
import { bindListener, PortUnavailableError, serveWith } from './http/listener.js';
import { createLogger } from './observability/log.js';
import { startBalanceFold } from './ledger/accounts/balanceFoldWorker.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  // Signals are handled from the first moment, not once serving: a stop sent right after the
  // "listening" line (or during start-up) still closes what is open and cleans up.
  const open: { server?: Server; fold?: { stop(): Promise<void> }; database?: { close(): Promise<void> } } = {};
  const shutdown = async (signal: string) => {
    log.info('shutting down', { signal });
    if (open.server) await closeServer(open.server);
    await open.fold?.stop();
    await open.database?.close();
    log.info('stopped');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void shutdown(signal));

  // The port first: a second server on it stops here, before a database is made or touched.
  const server = (open.server = await bindListener(config.port, config.host, {
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestReceiveTimeoutMs,
  }));
  const port = (server.address() as { port: number }).port;
  const baseUrl = config.publicUrl ?? `http://localhost:${port}`;

  const database = (open.database = await openDatabase({
    databaseUrl: config.databaseUrl,
    ephemeral: config.ephemeral,
    dataDir: config.dataDir,
    poolMax: config.databasePoolMax,
    statementTimeoutMs: config.requestTimeoutMs,
    connectTimeoutSeconds: config.databaseConnectTimeoutSeconds,
    waitUntilReachable: true,
    log: (message) => log.info(message),
  }));
  const { sql } = database;

  if (config.bootstrap) {
    const { clientId, clientSecret, workspaceName } = config.bootstrap;
    const outcome = await ensureBootstrapClient(sql, clientId, clientSecret, workspaceName);
    log.info('bootstrap client', { client_id: clientId, outcome });
  } else {
    const credential = await ensureDevelopmentClient(sql);
    if (credential) printDevelopmentCredential(credential, baseUrl);
  }

  const sandbox = config.sandbox ? { adminToken: config.adminToken ?? announceAdminToken(baseUrl) } : undefined;
  if (!sandbox) {
    const released = await retireSandboxClocks(sql);
    if (released > 0) log.info('released sandbox clocks: this server runs without the sandbox', { released });
  }
  const app = await createApp({
    sql,
    signingKey: await tokenSigningKey(sql),
    tokenTtlSeconds: config.tokenTtlSeconds,
    log,
    maxInFlightPerWorkspace: config.maxInFlightPerWorkspace,
    corsOrigins: config.corsOrigins,
    publicUrl: config.publicUrl,
    databasePoolMax: config.databasePoolMax,
    graphqlLimits: config.graphqlLimits,
    postingGroups: config.postingGroups,
    postingTargetCache: config.postingTargetCache,
    billingGroups: config.billingGroups,
    sandbox,
  });
  open.fold = startBalanceFold(sql, log, {
    intervalMs: config.balanceFoldIntervalMs,
    batchSize: config.balanceFoldBatchSize,
  });
  serveWith(server, app.callback());
  log.info('listening', { url: `http://localhost:${port}`, database: config.databaseUrl ? 'external' : 'embedded' });
}

/** Stops accepting connections, lets in-flight requests finish, then drops idle keep-alives. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Printed once, on the first start of an empty database (the secret is stored only hashed), as lines a shell can run. */
function printDevelopmentCredential(
  credential: { workspaceId: string; clientId: string; clientSecret: string },
  baseUrl: string,
) {
  process.stdout.write(
    [
      '',
      '# Created a development workspace and API client; the secret is shown only this once.',
      `# Workspace: ${credential.workspaceId}. Paste the next two lines into your shell:`,
      `export TALLY_CLIENT_ID='${credential.clientId}'`,
      `export TALLY_CLIENT_SECRET='${credential.clientSecret}'`,
      `# Get a token: curl -s -u "$TALLY_CLIENT_ID:$TALLY_CLIENT_SECRET" -d grant_type=client_credentials ${baseUrl}/oauth2/token`,
      '',
    ].join('\n') + '\n',
  );
}

/** The sandbox is on without TALLY_ADMIN_TOKEN: a token for this run, printed as a line a shell can run. */
function announceAdminToken(baseUrl: string): string {
  const token = randomBytes(24).toString('base64url');
  process.stdout.write(
    [
      '',
      "# Sandbox admin API on (set TALLY_ADMIN_TOKEN to choose the token); this run's token:",
      `export TALLY_ADMIN_TOKEN='${token}'`,
      `# New workspace and client: curl -s -X POST -H "Authorization: Bearer $TALLY_ADMIN_TOKEN" ${baseUrl}/sandbox/workspaces`,
      '',
    ].join('\n') + '\n',
  );
  return token;
}

function isExpected(error: unknown): error is Error {
  return (
    error instanceof ConfigError ||
    error instanceof EmbeddedBusyError ||
    error instanceof PortUnavailableError ||
    error instanceof UnknownMigrationsError
  );
}

main().catch((error) => {
  process.stderr.write(`${isExpected(error) ? error.message : error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
