import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { COMPILED_MAIN } from '../../src/cli/build.js';
import { freePort } from './ports.js';

// Tally as a user runs it: the real entry point in its own process, configured by environment.

export const root = path.resolve(import.meta.dirname, '../..');
const execFileAsync = promisify(execFile);

export type TallyProcess = { child: ChildProcess; baseUrl: string; port: number; output: () => string };

export type StartOptions = {
  /** Another checkout to serve (a benchmark's baseline); default: this one. */
  cwd?: string;
  /** Keep only what the server printed while starting: a benchmark's request log would fill memory. */
  startOutputOnly?: boolean;
  /** Serve the compiled server (dist/, from `buildServer`) as `make run` does, not the sources through tsx. */
  compiled?: boolean;
  /** Node flags for this server only (a benchmark comparing two settings of V8, say). */
  nodeFlags?: readonly string[];
};

export async function startTally(env: Record<string, string>, options: StartOptions = {}): Promise<TallyProcess> {
  const port = await freePort();
  const child = spawnTally(env, port, options.cwd, options.compiled, options.nodeFlags);
  let output = '';
  let started = false;
  const keep = (chunk: Buffer) => {
    if (!started || !options.startOutputOnly) output += chunk.toString();
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Tally did not start:\n${output}`)), 60_000);
    // Scanned only until the server listens: scanning a growing log on every chunk costs a core under load.
    const untilListening = () => {
      if (!output.includes('"msg":"listening"')) return;
      started = true;
      clearTimeout(timer);
      child.stdout!.off('data', untilListening);
      resolve();
    };
    child.stdout!.on('data', untilListening);
    child.once('exit', (code) => reject(new Error(`Tally exited with ${code}:\n${output}`)));
  });
  return { child, baseUrl: `http://127.0.0.1:${port}`, port, output: () => output };
}

/** The V8 flags `make run` starts the server with (SERVER_NODE_FLAGS in the checkout's Makefile). */
export function serverNodeFlags(cwd = root): string[] {
  const makefile = fs.readFileSync(path.join(cwd, 'Makefile'), 'utf8');
  return /^SERVER_NODE_FLAGS \?= (.*)$/m.exec(makefile)?.[1].split(' ').filter(Boolean) ?? [];
}

export function spawnTally(
  env: Record<string, string>,
  port: number,
  cwd = root,
  compiled = false,
  nodeFlags: readonly string[] = [],
): ChildProcess {
  // TALLY_NODE_ARGS adds flags NODE_OPTIONS refuses (a benchmark's --cpu-prof, say).
  const extra = process.env.TALLY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const entry = compiled ? [COMPILED_MAIN] : ['--import', 'tsx/esm', 'src/main.ts'];
  return spawn(process.execPath, [...serverNodeFlags(cwd), ...nodeFlags, ...extra, ...entry], {
    cwd,
    // As `make run` starts it (two malloc arenas), unless the environment says otherwise.
    env: { MALLOC_ARENA_MAX: '2', ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Compiles the checkout at `cwd` as `make run` does, when it knows how (a benchmark's baseline
 * may predate the build); answers whether it did, that is whether to start it `compiled`.
 */
export async function compileIfBuildable(cwd = root): Promise<boolean> {
  if (!fs.existsSync(path.join(cwd, 'src', 'cli', 'build.ts'))) return false;
  await execFileAsync(process.execPath, ['--import', 'tsx/esm', 'src/cli/build.ts'], { cwd });
  return true;
}

/** Stops with SIGTERM (graceful) or another signal; resolves with the exit code. */
export function stopTally(started: TallyProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (started.child.exitCode !== null || started.child.signalCode !== null)
    return Promise.resolve(started.child.exitCode);
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill(signal);
  });
}

/** Runs the admin CLI with this environment; rejects (with code and stderr) on a non-zero exit. */
export function admin(env: Record<string, string>, ...args: string[]) {
  return execFileAsync(process.execPath, ['--import', 'tsx/esm', 'src/cli/admin.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
}

/** Runs the server entry point to completion (for starts that are expected to fail). */
export function runTallyToExit(env: Record<string, string>) {
  return execFileAsync(process.execPath, ['--import', 'tsx/esm', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...env, HOST: '127.0.0.1' },
    timeout: 60_000,
  });
}
