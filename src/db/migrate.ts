import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './sql.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant works; it only has to be the same for every Tally process sharing a database.
const MIGRATION_LOCK = 7_310_001;

/** Applies pending forward-only migrations in name order, all or none, under a lock so concurrent starts queue. */
export async function migrate(sql: Sql): Promise<string[]> {
  const files = fs.readdirSync(MIGRATIONS_DIR).filter((name) => name.endsWith('.sql')).sort();
  return sql.begin(async (tx) => {
    // Migrations may run long; the request time budget of the pool's connections is not for them.
    await tx`set local statement_timeout = 0`;
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`
      create table if not exists schema_migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )`;
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    const applied: string[] = [];
    for (const name of files.filter((file) => !done.has(file))) {
      await tx.file(path.join(MIGRATIONS_DIR, name));
      await tx`insert into schema_migrations (name) values (${name})`;
      applied.push(name);
    }
    return applied;
  });
}
