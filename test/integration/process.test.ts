import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesRunningFrom } from '../../src/db/embeddedFolders.js';
import { liveOwner } from '../../src/db/embeddedOwner.js';
import { buildServer } from '../../src/cli/build.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { admin as runAdmin, root, runTallyToExit, startTally, stopTally as stop } from '../support/tallyProcess.js';
import { fetchToken } from '../support/token.js';

// Tally as a user runs it: the real entry point in its own process, configured by environment,
// stopped by SIGTERM; and the admin CLI against the same database.

const execFileAsync = promisify(execFile);
const ephemeralFolders = () => new Set(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('tally-pg-')));
/** Ephemeral folders that appeared since `before` and no living process owns: what a run left behind (test files running alongside own theirs). */
const leftBehind = (before: Set<string>) =>
  [...ephemeralFolders()].filter((name) => !before.has(name) && !liveOwner(path.join(os.tmpdir(), name)));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

describe('the tally process', () => {
  it('runs compiled, as make run serves it: the contracts, the dashboard and both APIs answer', async () => {
    await buildServer(root);
    const env = { DATABASE_URL: db.url, BOOTSTRAP_CLIENT_ID: 'built', BOOTSTRAP_CLIENT_SECRET: 'built-secret' };
    const tally = await startTally(env, { compiled: true });
    try {
      const token = await fetchToken(tally.baseUrl, 'built', 'built-secret');
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const ledger = await fetch(`${tally.baseUrl}/graphql`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          query: 'mutation { createLedger(ik: "built", ledger: { name: "Built" }) { __typename } }',
        }),
      });
      expect(await ledger.json()).toEqual({ data: { createLedger: { __typename: 'CreateLedgerResult' } } });
      const product = await fetch(`${tally.baseUrl}/billing/products`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ code: 'built', description: 'Built', paid_by_roles: [{ name: 'buyer' }] }),
      });
      expect(product.status).toBe(201);
      for (const [page, type] of [
        ['/openapi.yaml', 'yaml'],
        ['/schema.graphql', 'text/plain'],
        ['/dashboard/assets/dashboard.js', 'javascript'],
        ['/graphiql', 'text/html'],
      ]) {
        const response = await fetch(`${tally.baseUrl}${page}`);
        expect([page, response.status, response.headers.get('content-type')]).toEqual([
          page,
          200,
          expect.stringContaining(type),
        ]);
      }
    } finally {
      expect(await stop(tally)).toBe(0);
    }
  });

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
    const products = await fetch(`${tally.baseUrl}/billing/products`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'proc-1' },
    });
    expect(await products.json()).toEqual({ data: [] });
    expect(await fetchToken(tally.baseUrl, 'boot', 'boot-secret')).toMatch(/^tly1\./);

    expect(await stop(tally)).toBe(0);
    const lines = tally
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', request_id: 'proc-1', status: 200, path: '/billing/products' }),
    );
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped' });
  }, 90_000);

  it('with no DATABASE_URL runs its own PostgreSQL, prints a development credential as shell lines, and cleans up', async () => {
    const tally = await startTally({ DATABASE_URL: '', TALLY_EPHEMERAL: '1' });
    // The printed lines, pasted into a shell as they are, set the names the README uses.
    const printed = tally
      .output()
      .split('\n')
      .filter((line) => line.startsWith('export ') || line.startsWith('#'))
      .join('\n');
    const evaluated = await execFileAsync('bash', [
      '-c',
      `${printed}\nprintf '%s\\n' "$TALLY_CLIENT_ID" "$TALLY_CLIENT_SECRET"`,
    ]);
    const [clientId, clientSecret] = evaluated.stdout.trim().split('\n');
    expect(clientId).toMatch(/^\S{8,}$/);
    expect(printed).toContain(`-d grant_type=client_credentials http://localhost:${tally.port}/oauth2/token`);
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

  it('refuses a busy port in one line before it creates or changes anything', async () => {
    const holder = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const before = ephemeralFolders();
      const result = await runTallyToExit({ DATABASE_URL: '', TALLY_EPHEMERAL: '1', PORT: String(port) }).catch(
        (error) => error,
      );
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `Port ${port} is in use (127.0.0.1:${port}): another Tally or another server listens there. Stop it, or set PORT to a free port.`,
      );
      expect(result.stdout).not.toContain('TALLY_CLIENT_ID');
      expect(leftBehind(before)).toEqual([]);
    } finally {
      holder.close();
    }
  }, 60_000);

  it('keeps idle keep-alive connections past the headers timeout, and announces how long', async () => {
    const tally = await startTally({
      DATABASE_URL: db.url,
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '1000',
    });
    try {
      const socket = net.connect(tally.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      const ask = async () => {
        received = '';
        socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
        for (let waited = 0; !received.includes('\r\n\r\n') && waited < 5000; waited += 20)
          await new Promise((resolve) => setTimeout(resolve, 20));
        return received;
      };
      expect(await ask()).toMatch(/^HTTP\/1\.1 200[\s\S]*Keep-Alive: timeout=95\r\n/);
      // Idle for more than the headers and request timeouts: the same connection still serves.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(socket.destroyed).toBe(false);
      expect(await ask()).toMatch(/^HTTP\/1\.1 200/);
      socket.destroy();
    } finally {
      await stop(tally);
    }
  }, 60_000);

  it('removes an ephemeral folder on SIGHUP, and sweeps the folder of a run killed outright', async () => {
    const before = ephemeralFolders();
    const killed = await startTally({ DATABASE_URL: '', TALLY_EPHEMERAL: '1' });
    const killedFolder = path.dirname(/\(data: ([^)]+)\)/.exec(killed.output())![1]);
    expect(await stop(killed, 'SIGKILL')).toBe(null);
    expect(fs.existsSync(killedFolder)).toBe(true);

    const next = await startTally({ DATABASE_URL: '', TALLY_EPHEMERAL: '1' });
    expect(next.output()).toContain(`removed ${killedFolder}`);
    expect(fs.existsSync(killedFolder)).toBe(false);
    const nextFolder = path.dirname(/\(data: ([^)]+)\)/.exec(next.output())![1]);
    expect(await stop(next, 'SIGHUP')).toBe(0);
    expect(fs.existsSync(nextFolder)).toBe(false);
    expect(leftBehind(before)).toEqual([]);
  }, 120_000);

  it('make clean-data removes the local database, and refuses while a Tally owns it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-clean-'));
    fs.chmodSync(dataDir, 0o755);
    const env = {
      DATABASE_URL: '',
      TALLY_DATA_DIR: dataDir,
      BOOTSTRAP_CLIENT_ID: 'boot',
      BOOTSTRAP_CLIENT_SECRET: 'boot-secret',
    };
    const clean = () =>
      execFileAsync(process.execPath, ['--import', 'tsx/esm', 'src/cli/cleanData.ts'], {
        cwd: root,
        env: { ...process.env, ...env },
      });
    const tally = await startTally(env);
    try {
      await expect(clean()).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`belongs to a running Tally (pid ${tally.child.pid})`),
      });
      expect(fs.existsSync(path.join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    } finally {
      expect(await stop(tally)).toBe(0);
    }
    // A copy of the binaries that running PostgreSQL servers use (this very test run's, when the
    // checkout is private to root) must survive: they load libraries from it as they go.
    const copiesInUse = fs
      .readdirSync(os.tmpdir())
      .filter((name) => name.startsWith('tally-postgres-'))
      .map((name) => path.join(os.tmpdir(), name))
      .filter((folder) => processesRunningFrom(folder).length > 0);
    const cleaned = (await clean()).stdout;
    expect(cleaned).toContain(`removed ${dataDir}`);
    expect(fs.existsSync(dataDir)).toBe(false);
    for (const folder of copiesInUse) {
      expect(cleaned).toContain(`kept ${folder}`);
      expect(fs.existsSync(path.join(folder, 'bin', 'postgres'))).toBe(true);
    }
  }, 120_000);
});
