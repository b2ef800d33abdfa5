import fs from 'node:fs';
import path from 'node:path';

// One Tally process owns an embedded data folder at a time. The owner writes owner.json beside
// the cluster; others read it to find the running database (the admin CLI) or to refuse (a
// second server). A pid is checked together with its start time, so a reused pid is not an owner.

export type Owner = { pid: number; startedAt: string; url?: string };

/** The data folder belongs to another running Tally. */
export class EmbeddedBusyError extends Error {}

const OWNER_FILE = 'owner.json';

export function ownerFile(parentDir: string): string {
  return path.join(parentDir, OWNER_FILE);
}

/** The owner recorded in the folder, if it is a live process (not a leftover of a killed run). */
export function liveOwner(parentDir: string): Owner | undefined {
  const owner = readOwner(ownerFile(parentDir));
  return owner && owner.pid !== process.pid && isAlive(owner) ? owner : undefined;
}

/**
 * Takes ownership of the folder, or returns the live owner that holds it. Creation with `wx` is
 * atomic, so of two starts at once exactly one wins; a dead owner's file is moved aside first.
 */
export function acquireOwnership(parentDir: string): { acquired: true } | { acquired: false; owner: Owner } {
  const file = ownerFile(parentDir);
  const mine: Owner = { pid: process.pid, startedAt: processStart(process.pid) ?? '' };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx', mode: 0o644 });
      return { acquired: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readOwner(file);
    if (owner && isAlive(owner)) return { acquired: false, owner };
    // Stale: move it aside under a unique name; if another process moved it first, just retry.
    const aside = `${file}.stale-${process.pid}-${attempt}`;
    try {
      fs.renameSync(file, aside);
      fs.rmSync(aside, { force: true });
    } catch {
      // lost the race to another start; the next attempt sees its fresh file
    }
  }
  throw new Error(`cannot take ownership of ${parentDir}: ${file} keeps changing`);
}

/** Records where the owned database listens, for the admin CLI. */
export function publishUrl(parentDir: string, url: string): void {
  const mine: Owner = { pid: process.pid, startedAt: processStart(process.pid) ?? '', url };
  const temporary = `${ownerFile(parentDir)}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(mine), { mode: 0o644 });
  fs.renameSync(temporary, ownerFile(parentDir));
}

export function releaseOwnership(parentDir: string): void {
  const file = ownerFile(parentDir);
  if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true });
}

function readOwner(file: string): Owner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Owner;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(owner: Owner): boolean {
  const started = processStart(owner.pid);
  return started !== undefined && (owner.startedAt === '' || started === owner.startedAt);
}

/** The process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
