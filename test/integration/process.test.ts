import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { fetchToken } from '../support/token.js';

// Tally as a user runs it: the real entry point in its own process, configured by environment,
// stopped by SIGTERM; and the admin CLI against the same database.

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

type Started = { child: ChildProcess; baseUrl: string; output: () => string };

async function startTally(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx/esm', 'src/main.ts'], {
    cwd: root, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Tally did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      if (output.includes('"msg":"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`Tally exited with ${code}:\n${output}`)));
  });
  return { child, baseUrl: `http://127.0.0.1:${port}`, output: () => output };
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

describe('the tally process', () => {
  it('serves with DATABASE_URL, accepts clients made by the admin CLI, logs JSON, and stops on SIGTERM', async () => {
    const env = { DATABASE_URL: db.url, BOOTSTRAP_CLIENT_ID: 'boot', BOOTSTRAP_CLIENT_SECRET: 'boot-secret' };
    const tally = await startTally(env);
    const admin = (...args: string[]) => run(process.execPath, ['--import', 'tsx/esm', 'src/cli/admin.ts', ...args], { cwd: root, env: { ...process.env, ...env } });
    const workspaceId = (await admin('create-workspace', '--name', 'From CLI')).stdout.trim();
    expect(workspaceId).toMatch(/^ws_/);
    const created = (await admin('create-client', '--workspace', workspaceId)).stdout;
    const clientId = /client_id=(\S+)/.exec(created)![1];
    const clientSecret = /client_secret=(\S+)/.exec(created)![1];
    await expect(admin('create-client', '--workspace', 'ws_missing')).rejects.toMatchObject({ code: 2 });

    const token = await fetchToken(tally.baseUrl, clientId, clientSecret);
    const products = await fetch(`${tally.baseUrl}/billing/products`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'proc-1' } });
    expect(await products.json()).toEqual({ data: [] });
    expect(await fetchToken(tally.baseUrl, 'boot', 'boot-secret')).toBeTruthy();

    expect(await stop(tally)).toBe(0);
    const lines = tally.output().trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', request_id: 'proc-1', status: 200, path: '/billing/products' }));
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped' });
  }, 90_000);

  it('with no DATABASE_URL runs its own PostgreSQL, prints a development credential, and cleans up', async () => {
    const tally = await startTally({ DATABASE_URL: '', TALLY_EPHEMERAL: '1' });
    const clientId = /client_id:\s+(\S+)/.exec(tally.output())![1];
    const clientSecret = /client_secret:\s+(\S+)/.exec(tally.output())![1];
    const token = await fetchToken(tally.baseUrl, clientId, clientSecret);
    const response = await fetch(`${tally.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ workspace { name } }' }),
    });
    expect(await response.json()).toEqual({ data: { workspace: { name: 'Development' } } });
    const dataDir = /\(data: ([^)]+)\)/.exec(tally.output())![1];
    expect(fs.existsSync(dataDir)).toBe(true);
    expect(await stop(tally)).toBe(0);
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 90_000);

  it('refuses a bad configuration with a message naming it', async () => {
    const result = run(process.execPath, ['--import', 'tsx/esm', 'src/main.ts'], { cwd: root, env: { ...process.env, PORT: 'eighty' } });
    await expect(result).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('PORT must be an integer') });
  });
});
