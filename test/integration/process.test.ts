import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { admin as runAdmin, runTallyToExit, startTally, stopTally as stop } from '../support/tallyProcess.js';
import { fetchToken } from '../support/token.js';

// Tally as a user runs it: the real entry point in its own process, configured by environment,
// stopped by SIGTERM; and the admin CLI against the same database.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

describe('the tally process', () => {
  it('serves with DATABASE_URL, accepts clients made by the admin CLI, logs JSON, and stops on SIGTERM', async () => {
    const env = { DATABASE_URL: db.url, BOOTSTRAP_CLIENT_ID: 'boot', BOOTSTRAP_CLIENT_SECRET: 'boot-secret' };
    const tally = await startTally(env);
    const admin = (...args: string[]) => runAdmin(env, ...args);
    const workspaceId = (await admin('create-workspace', '--name', 'From CLI')).stdout.trim();
    expect(workspaceId).toMatch(/^ws_/);
    const created = (await admin('create-client', '--workspace', workspaceId)).stdout;
    const clientId = /client_id=(\S+)/.exec(created)![1];
    const clientSecret = /client_secret=(\S+)/.exec(created)![1];
    await expect(admin('create-client', '--workspace', 'ws_missing')).rejects.toMatchObject({ code: 2 });
    expect((await admin('check')).stdout).toContain('ok: every invariant holds');

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
    const result = runTallyToExit({ PORT: 'eighty' });
    await expect(result).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('PORT must be an integer') });
  });
});
