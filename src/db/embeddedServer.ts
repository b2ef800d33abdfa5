import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

// The PostgreSQL processes of the embedded database: running the binaries (as the postgres user
// when we are root), waiting until ready, supervising and restarting, and stopping leftovers.

export type RunAs = { uid: number; gid: number } | undefined;

export const SUPERUSER = 'postgres';
export const READY_TIMEOUT_MS = 60_000;
const RESTART_DELAY_MAX_MS = 10_000;

/**
 * Runs the postgres server and restarts it, with a growing delay, whenever it exits without
 * being asked to (killed, crashed): the API answers 503 meanwhile and recovers by itself.
 */
export function superviseServer(spawnServer: () => ChildProcess, dataDir: string, log: (m: string) => void) {
  let current = spawnServer();
  let stopping = false;
  const killOnExit = () => current.kill('SIGQUIT');
  process.once('exit', killOnExit);

  const watch = (child: ChildProcess) =>
    child.once('exit', (code, signal) => {
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

/** PostgreSQL refuses to run as root, so as root we run it as the `postgres` system user. */
export function ensureServerUser(): RunAs {
  if (process.getuid?.() !== 0) return undefined;
  let ids = lookupUser(SUPERUSER);
  if (!ids) {
    const made = spawnSync(
      'useradd',
      ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER],
      { encoding: 'utf8' },
    );
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

export function run(binary: string, args: string[], runAs: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} exited with ${code}:\n${output}`)),
    );
  });
}

function waitUntilReady(server: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`PostgreSQL not ready after ${READY_TIMEOUT_MS} ms:\n${output}`)),
      READY_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) done();
    };
    const onExit = (code: number | null) =>
      fail(new Error(`PostgreSQL exited (${code}) before it was ready:\n${output}`));
    const cleanup = () => {
      clearTimeout(timer);
      server.stderr?.off('data', onData);
      server.off('exit', onExit);
      server.off('error', fail);
      // Keep draining its output so a chatty server never blocks on a full pipe.
      server.stderr?.resume();
      server.stdout?.resume();
    };
    const done = () => {
      cleanup();
      resolve();
    };
    function fail(error: Error) {
      cleanup();
      reject(error);
    }
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
export async function stopLeftoverServer(dataDir: string, log: (m: string) => void): Promise<void> {
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

export function freePort(): Promise<number> {
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
