import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySecret } from '../../src/core/credentials.js';
import { ensureBootstrapClient, ensureDevelopmentClient } from '../../src/db/provision.js';
import { findClient, listWorkspaces } from '../../src/db/workspaces.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

describe('start-up provisioning', () => {
  it('creates the development client only on an empty database', async () => {
    const first = await ensureDevelopmentClient(db.sql);
    expect(first?.clientSecret).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const stored = await findClient(db.sql, first!.clientId);
    expect(stored!.secretHash).not.toContain(first!.clientSecret);
    expect(await verifySecret(first!.clientSecret, stored!.secretHash)).toBe(true);
    expect(await ensureDevelopmentClient(db.sql)).toBeUndefined();
  });

  it('makes the bootstrap client exist with the configured secret, idempotently', async () => {
    expect(await ensureBootstrapClient(db.sql, 'ci-client', 'secret-1', 'CI')).toBe('created');
    expect(await ensureBootstrapClient(db.sql, 'ci-client', 'secret-1', 'CI')).toBe('unchanged');
    expect(await ensureBootstrapClient(db.sql, 'ci-client', 'secret-2', 'CI')).toBe('updated');
    const client = await findClient(db.sql, 'ci-client');
    expect(await verifySecret('secret-2', client!.secretHash)).toBe(true);
    expect((await listWorkspaces(db.sql)).filter((w) => w.name === 'CI')).toHaveLength(1);
  });
});
