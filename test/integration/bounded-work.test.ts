import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { connect, type Sql } from '../../src/db/sql.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { silentLogger } from '../../src/observability/log.js';
import { gql } from '../support/graphql.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Requests are held in flight deterministically by a lock the test takes on the table they read.

let server: TestServer;
let alice: TestWorkspace;
let bob: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer({ maxInFlightPerWorkspace: 2 });
  alice = await server.workspace('Alice');
  bob = await server.workspace('Bob');
});
afterAll(() => server?.close());

/** Runs `during` while another session holds an exclusive lock on `table`. */
async function withTableLocked<T>(sql: Sql, table: string, during: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = sql.begin(async (trx) => {
    await trx`lock table ${trx(table)} in access exclusive mode`;
    locked();
    await released;
  });
  await isLocked;
  try {
    return await during();
  } finally {
    release();
    await holder;
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe('requests in flight per workspace', () => {
  it('answers the request over the cap with a typed, retryable 429 on REST and GraphQL, and only for that workspace', async () => {
    let held: ReturnType<typeof rest>[] = [];
    await withTableLocked(server.db.sql, 'products', async () => {
      held = [1, 2].map(() => rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token }));
      await settle();
      const refused = await rest(server.baseUrl, 'GET', '/products', { token: alice.token });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'too_many_requests', retryable: true });
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('x-should-retry')).toBe('true');
      const refusedGraphql = await gql(server.baseUrl, alice.token, '{ workspace { id } }');
      expect(refusedGraphql.status).toBe(429);
      expect(refusedGraphql.body.errors?.[0]?.extensions).toMatchObject({ code: 'too_many_requests', retryable: true });
      // Another workspace is not affected by Alice's load.
      const other = await gql(server.baseUrl, bob.token, '{ workspace { id } }');
      expect(other.status).toBe(200);
    });
    // Once the lock is gone the two admitted requests complete normally.
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
  });

  it('gives every slot back, whatever the outcome', async () => {
    for (let i = 0; i < 5; i++) {
      expect(
        (await rest(server.baseUrl, 'POST', '/billing/products', { token: alice.token, body: { code: 7 } })).status,
      ).toBe(400);
      expect((await gql(server.baseUrl, alice.token, '{ nope }')).body.errors).toHaveLength(1);
    }
    const burst = await Promise.all(
      [1, 2].map(() => rest(server.baseUrl, 'GET', '/billing/products', { token: alice.token })),
    );
    expect(burst.map((r) => r.status)).toEqual([200, 200]);
  });
});

describe('time budget', () => {
  let budgeted: { server: Server; url: string; sql: Sql };

  beforeAll(async () => {
    const sql = connect(server.db.url, { max: 4, statementTimeoutMs: 300 });
    const app = await createApp({
      sql,
      signingKey: await tokenSigningKey(sql),
      tokenTtlSeconds: 3600,
      log: silentLogger,
    });
    const listening = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    budgeted = { server: listening, sql, url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}` };
  });
  afterAll(async () => {
    budgeted.server.closeAllConnections();
    budgeted.server.close();
    await budgeted.sql.end();
  });

  it('cancels a statement that outlives the budget in PostgreSQL and answers a retryable 503', async () => {
    await withTableLocked(server.db.sql, 'products', async () => {
      const slow = await rest(budgeted.url, 'GET', '/billing/products', { token: alice.token });
      expect(slow.status).toBe(503);
      expect(slow.body).toMatchObject({ code: 'deadline_exceeded', retryable: true });
      expect(slow.headers.get('x-should-retry')).toBe('true');
      const waiting = await server.db.sql`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and application_name = 'tally'`;
      expect(waiting[0].n).toBe(0);
    });
  });

  it('answers a GraphQL field that outlives the budget with extensions.code deadline_exceeded', async () => {
    await withTableLocked(server.db.sql, 'ledgers', async () => {
      const slow = await gql(budgeted.url, alice.token, '{ ledgers { nodes { id } } }');
      expect(slow.body.errors?.[0]?.extensions).toMatchObject({ code: 'deadline_exceeded', retryable: true });
    });
  });
});
