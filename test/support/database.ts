import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { connect, type Sql } from '../../src/db/sql.js';
import { TEMPLATE_DATABASE } from './globalSetup.js';

export type TestDatabase = { sql: Sql; url: string; drop(): Promise<void> };

/** A fresh, migrated database of its own (a clone of the template): tests never share rows. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const postgresUrl = inject('postgresUrl');
  const name = `tally_test_${randomBytes(6).toString('hex')}`;
  const url = await ensureDatabase(postgresUrl, name, TEMPLATE_DATABASE);
  const sql = connect(url, { max: 5 });
  return {
    sql,
    url,
    async drop() {
      await sql.end();
      const admin = connect(postgresUrl, { max: 1 });
      await admin`drop database if exists ${admin(name)} with (force)`;
      await admin.end();
    },
  };
}

/**
 * A test file's own database, created before its tests and dropped after them; `ready` gets its
 * connection first (to keep it, and to seed rows every test shares).
 */
export function useTestDatabase(ready: (sql: Sql, url: string) => Promise<void> | void): void {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    await ready(db.sql, db.url);
  });
  afterAll(async () => {
    await db?.drop();
  });
}
