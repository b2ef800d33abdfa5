import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outageScope, until } from '../support/outages.js';
import { freePort } from '../support/ports.js';
import { admin, runTallyToExit, startTally, stopTally } from '../support/tallyProcess.js';
import { fetchToken } from '../support/token.js';

// Faults a self-hosted Tally meets: its database going away and coming back, a second process on
// the same embedded data folder, the admin CLI beside a running server, and kills.

const { running, temporaryFolder, tallyOnOwnPostgres } = outageScope('tally-faults-');

const ready = async (baseUrl: string) => (await fetch(`${baseUrl}/readyz`)).status === 200;

function graphql(baseUrl: string, token: string, query: string) {
  return fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as { data?: any; errors?: any[] },
  }));
}

describe('while the database is unreachable', () => {
  it('answers a typed, retryable 503 on every path, and recovers by itself when it returns', async () => {
    const { database: first, tally, token, start } = await tallyOnOwnPostgres();
    const database = first;
    const auth = { authorization: `Bearer ${token}` };
    // `connection: close` leaves no idle keep-alive socket behind: stopping PostgreSQL can take
    // longer than the server's keep-alive, and reusing a socket it just closed is ECONNRESET.
    expect(
      (await fetch(`${tally.baseUrl}/billing/products`, { headers: { ...auth, connection: 'close' } })).status,
    ).toBe(200);

    await database.stop();

    const products = await fetch(`${tally.baseUrl}/billing/products`, { headers: auth });
    expect(products.status).toBe(503);
    expect(await products.json()).toMatchObject({ code: 'service_unavailable', retryable: true });
    expect(products.headers.get('x-should-retry')).toBe('true');
    expect(products.headers.get('retry-after')).toBe('1');
    const query = await graphql(tally.baseUrl, token, '{ ledgers { nodes { id } } }');
    expect(query.body.errors?.[0]?.extensions).toMatchObject({ code: 'service_unavailable', retryable: true });
    const mutation = await graphql(
      tally.baseUrl,
      token,
      'mutation { createLedger(ik: "down", ledger: { name: "D" }) { __typename ... on InternalError { code retryable } } }',
    );
    expect(mutation.body.data.createLedger).toEqual({
      __typename: 'InternalError',
      code: 'service_unavailable',
      retryable: true,
    });
    const tokenRequest = await fetch(`${tally.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('boot:boot-secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(tokenRequest.status).toBe(503);
    expect(await tokenRequest.json()).toMatchObject({
      error: 'temporarily_unavailable',
      code: 'service_unavailable',
      retryable: true,
    });
    expect((await fetch(`${tally.baseUrl}/readyz`)).status).toBe(503);

    await start();
    await until(() => ready(tally.baseUrl), 'readyz after the database returned');
    expect((await fetch(`${tally.baseUrl}/billing/products`, { headers: auth })).status).toBe(200);
    const created = await graphql(
      tally.baseUrl,
      token,
      'mutation { createLedger(ik: "up", ledger: { name: "U" }) { __typename } }',
    );
    expect(created.body.data.createLedger.__typename).toBe('CreateLedgerResult');
    expect(await stopTally(tally)).toBe(0);
  }, 120_000);
});

describe('the embedded database has one owner', () => {
  it('shares it with the admin CLI, refuses a second server, survives its PostgreSQL being killed, and recovers from a kill -9', async () => {
    const env = {
      DATABASE_URL: '',
      TALLY_DATA_DIR: temporaryFolder(),
      BOOTSTRAP_CLIENT_ID: 'boot',
      BOOTSTRAP_CLIENT_SECRET: 'boot-secret',
    };
    const first = await startTally(env);
    running.push(first);
    const token = await fetchToken(first.baseUrl, 'boot', 'boot-secret');

    // The admin CLI uses the running database and leaves it running.
    const workspaceId = (await admin(env, 'create-workspace', '--name', 'Acme')).stdout.trim();
    expect(workspaceId).toMatch(/^ws_/);
    expect((await admin(env, 'list-workspaces')).stdout).toContain('Acme');
    expect(await ready(first.baseUrl)).toBe(true);
    expect((await graphql(first.baseUrl, token, '{ workspace { id } }')).status).toBe(200);

    // A second server on the same folder refuses at once, naming the owner; the first is unaffected.
    const second = await runTallyToExit({ ...env, PORT: String(await freePort()) }).catch((error) => error);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`belongs to a running Tally (pid ${first.child.pid})`);
    expect(await ready(first.baseUrl)).toBe(true);

    // Its PostgreSQL killed outright: Tally restarts it and serves again.
    const dataDir = /\(data: ([^)]+)\)/.exec(first.output())![1];
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    await until(async () => !(await ready(first.baseUrl)), 'readyz to notice the outage', 10_000).catch(() => {});
    await until(() => ready(first.baseUrl), 'readyz after the restart');
    expect((await graphql(first.baseUrl, token, '{ workspace { id } }')).status).toBe(200);
    expect(first.output()).toContain('restarting it');

    // Tally killed outright leaves its PostgreSQL behind; the next start cleans it up and serves.
    expect(await stopTally(first, 'SIGKILL')).toBe(null);
    const next = await startTally(env);
    running.push(next);
    expect(next.output()).toContain('left running');
    expect((await admin(env, 'list-workspaces')).stdout).toContain('Acme');
    expect(await stopTally(next)).toBe(0);
    expect(fs.existsSync(path.join(env.TALLY_DATA_DIR, 'owner.json'))).toBe(false);
  }, 180_000);
});
