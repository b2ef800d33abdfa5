import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './sql.js';

// Two kinds of SQL files (src/db/functions/README.md says more):
// - migrations/: versioned, applied once each in name order (tables, indexes, constraints);
// - functions/: one file per family of functions, `create or replace` only, re-applied when
//   the file's sha256 differs from the one recorded in schema_functions.
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const FUNCTIONS_DIR = fileURLToPath(new URL('./functions/', import.meta.url));
// Any constant works; it only has to be the same for every Tally process sharing a database.
const MIGRATION_LOCK = 7_310_001;

// The baseline replaced these migrations (2026-11-21 to 2026-11-27), which no release ever
// shipped. Databases they built still exist (developers' .data/ folders), and they hold exactly
// the baseline's tables, indexes and constraints (test/db/schema.test.ts checks the schema the
// baseline builds against the one they built). So a database whose schema_migrations lists all
// of them, and nothing else, is adopted: the baseline is recorded as applied instead of run, and
// the function files then replace the functions as in any database. Any other list naming a
// migration that is no longer in migrations/ is refused (see UnknownMigrationsError).
const BASELINE = '20261128T000000_baseline.sql';
export const SQUASHED_INTO_BASELINE: readonly string[] = [
  '20261121T120000_workspaces_and_clients.sql',
  '20261121T120100_products_and_roles.sql',
  '20261121T120200_ledgers_and_schemas.sql',
  '20261121T130000_ledger_schema_version.sql',
  '20261124T120000_ledger_accounts.sql',
  '20261124T130000_ledger_entries.sql',
  '20261125T120000_typed_entries.sql',
  '20261125T130000_reversals.sql',
  '20261125T140000_posting_answers_created.sql',
  '20261125T150000_entry_group_index.sql',
  '20261125T160000_posting_outcomes.sql',
  '20261125T170000_line_tags_total_conditions.sql',
  '20261125T180000_invoices_and_transactions.sql',
  '20261125T190000_payment_flows.sql',
  '20261125T200000_create_invoice.sql',
  '20261125T210000_balance_history.sql',
  '20261126T090000_links_and_reconciliation.sql',
  '20261127T090000_product_request_hash.sql',
];

/** The database records migrations this Tally does not have: it cannot tell what its schema is. */
export class UnknownMigrationsError extends Error {}

export type MigrateOptions = {
  /** Folders of the two kinds of SQL files; tests point them elsewhere. */
  migrationsDir?: string;
  functionsDir?: string;
};

type FunctionFile = { name: string; text: string; hash: string };

/**
 * Brings the database to the schema of this Tally, all or none, under a lock so concurrent starts
 * queue: applies the pending versioned migrations in name order, then every function file whose
 * content changed since it was last applied (all of them after a versioned migration ran: one
 * may have dropped a function whose file did not change). Answers what it did, one step each
 * (migration names, and function files as `functions/<name>`), for the log.
 */
export async function migrate(sql: Sql, options: MigrateOptions = {}): Promise<string[]> {
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  const functionsDir = options.functionsDir ?? FUNCTIONS_DIR;
  const migrations = sqlFiles(migrationsDir);
  const functions: FunctionFile[] = sqlFiles(functionsDir).map((name) => {
    const bytes = fs.readFileSync(path.join(functionsDir, name));
    return { name, text: bytes.toString('utf8'), hash: createHash('sha256').update(bytes).digest('hex') };
  });
  return sql.begin(async (trx) => {
    // Migrations may run long; the request time budget of the pool's connections is not for them.
    await trx`set local statement_timeout = 0`;
    await trx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await trx`
      create table if not exists schema_migrations (
        name text primary key,
        applied_at timestamptz not null default now()
      )`;
    await trx`
      create table if not exists schema_functions (
        name text primary key,
        hash text not null,
        applied_at timestamptz not null default now()
      )`;
    const steps: string[] = [];

    let done = new Set((await trx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    const unknown = [...done].filter((name) => !migrations.includes(name)).sort();
    if (unknown.length > 0) {
      const squashed =
        migrations.includes(BASELINE) &&
        unknown.length === done.size &&
        unknown.join() === [...SQUASHED_INTO_BASELINE].sort().join();
      if (!squashed) {
        throw new UnknownMigrationsError(
          `The database records migrations that are not in src/db/migrations/ (${unknown.join(', ')}). ` +
            'It was built by another version of Tally, whose migrations were since replaced or are not in this checkout. ' +
            'Tally has had no release, so nothing needs them: recreate the local database with `make clean-data` ' +
            '(or, with DATABASE_URL, drop and create that database), then start again.',
        );
      }
      await trx`delete from schema_migrations where name in ${trx(SQUASHED_INTO_BASELINE)}`;
      await trx`insert into schema_migrations (name) values (${BASELINE})`;
      steps.push(`${BASELINE} (adopted: the database was built by the migrations it replaced)`);
      done = new Set([BASELINE]);
    }

    let migrated = false;
    for (const name of migrations.filter((file) => !done.has(file))) {
      await trx.file(path.join(migrationsDir, name));
      await trx`insert into schema_migrations (name) values (${name})`;
      steps.push(name);
      migrated = true;
    }

    const applied = new Map(
      (await trx<{ name: string; hash: string }[]>`select name, hash from schema_functions`).map((r) => [
        r.name,
        r.hash,
      ]),
    );
    for (const file of functions) {
      if (!migrated && applied.get(file.name) === file.hash) continue;
      await trx.unsafe(file.text);
      await trx`
        insert into schema_functions (name, hash) values (${file.name}, ${file.hash})
        on conflict (name) do update set hash = excluded.hash, applied_at = now()`;
      steps.push(`functions/${file.name}`);
    }
    // A removed file leaves its functions in place (dropping one takes a versioned migration),
    // but no record.
    const gone = [...applied.keys()].filter((name) => !functions.some((file) => file.name === name));
    if (gone.length > 0) await trx`delete from schema_functions where name in ${trx(gone)}`;
    return steps;
  });
}

function sqlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort();
}
