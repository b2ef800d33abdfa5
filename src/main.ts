import type { Server } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { EmbeddedBusyError } from './db/embedded.js';
import { ensureBootstrapClient, ensureDevelopmentClient } from './db/provision.js';
import { tokenSigningKey } from './db/workspaces.js';
import { answerMalformedRequests } from './http/clientErrors.js';
import { createLogger } from './http/log.js';
import { startBalanceFold } from './ledger/balanceFold.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    ephemeral: config.ephemeral,
    dataDir: config.dataDir,
    poolMax: config.databasePoolMax,
    statementTimeoutMs: config.requestTimeoutMs,
    connectTimeoutSeconds: config.databaseConnectTimeoutSeconds,
    log: (message) => log.info(message),
  });
  const { sql } = database;

  if (config.bootstrap) {
    const { clientId, clientSecret, workspaceName } = config.bootstrap;
    const outcome = await ensureBootstrapClient(sql, clientId, clientSecret, workspaceName);
    log.info('bootstrap client', { client_id: clientId, outcome });
  } else {
    const credential = await ensureDevelopmentClient(sql);
    if (credential) printDevelopmentCredential(credential, config.port);
  }

  const app = await createApp({
    sql, signingKey: await tokenSigningKey(sql), tokenTtlSeconds: config.tokenTtlSeconds, log,
    maxInFlightPerWorkspace: config.maxInFlightPerWorkspace, corsOrigins: config.corsOrigins, publicUrl: config.publicUrl,
    databasePoolMax: config.databasePoolMax, graphqlLimits: config.graphqlLimits,
  });
  const fold = startBalanceFold(sql, log, { intervalMs: config.balanceFoldIntervalMs, batchSize: config.balanceFoldBatchSize });
  const server = app.listen(config.port, config.host);
  answerMalformedRequests(server);
  // A client that trickles its request in (slowloris) gives up its socket after this long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  log.info('listening', { url: `http://localhost:${config.port}`, database: config.databaseUrl ? 'external' : 'embedded' });

  const shutdown = async (signal: string) => {
    log.info('shutting down', { signal });
    await closeServer(server);
    await fold.stop();
    await database.close();
    log.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
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

function printDevelopmentCredential(credential: { workspaceId: string; clientId: string; clientSecret: string }, port: number) {
  // Printed once, on the first start of an empty database: the secret is not stored in clear anywhere.
  process.stdout.write([
    '',
    'Created a development workspace and API client (shown only this once):',
    `  workspace_id:  ${credential.workspaceId}`,
    `  client_id:     ${credential.clientId}`,
    `  client_secret: ${credential.clientSecret}`,
    `Get a token:  curl -s -u '${credential.clientId}:${credential.clientSecret}' -d grant_type=client_credentials http://localhost:${port}/oauth2/token`,
    '',
  ].join('\n') + '\n');
}

main().catch((error) => {
  const expected = error instanceof ConfigError || error instanceof EmbeddedBusyError;
  process.stderr.write(`${expected ? error.message : error?.stack ?? error}\n`);
  process.exit(1);
});
