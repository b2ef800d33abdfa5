import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { migrate, SQUASHED_INTO_BASELINE, UnknownMigrationsError } from '../../src/db/migrate.js';
import { connect, type Sql } from '../../src/db/sql.js';
import { dumpFreshlyMigrated, dumpSchema, SNAPSHOT_FILE } from './schemaDump.js';

const SRC_DB = fileURLToPath(new URL('../../src/db/', import.meta.url));
const FUNCTION_FILES = fs
  .readdirSync(path.join(SRC_DB, 'functions'))
  .filter((name) => name.endsWith('.sql'))
  .sort();
const ALL_FUNCTION_STEPS = FUNCTION_FILES.map((name) => `functions/${name}`);
const MIGRATION_FILES = fs
  .readdirSync(path.join(SRC_DB, 'migrations'))
  .filter((name) => name.endsWith('.sql'))
  .sort();

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A new database with nothing in it (not a clone of the migrated template). */
async function emptyDatabase(): Promise<Sql> {
  const postgresUrl = inject('postgresUrl');
  const name = `tally_test_empty_${randomBytes(6).toString('hex')}`;
  const sql = connect(await ensureDatabase(postgresUrl, name), { max: 2 });
  cleanups.push(async () => {
    await sql.end();
    const admin = connect(postgresUrl, { max: 1 });
    await admin`drop database if exists ${admin(name)} with (force)`;
    await admin.end();
  });
  return sql;
}

/** A copy of src/db/<folder> that a test may change. */
function copyOf(folder: 'migrations' | 'functions'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tally-${folder}-`));
  fs.cpSync(path.join(SRC_DB, folder), dir, { recursive: true });
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The row version (xmin) of each public function's catalog row: it changes when the function is replaced. */
async function functionVersions(sql: Sql): Promise<Map<string, string>> {
  const rows = await sql<{ name: string; xmin: string }[]>`
    select p.proname as name, p.xmin::text as xmin from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public'`;
  return new Map(rows.map((row) => [row.name, row.xmin]));
}

describe('the schema', () => {
  it('that migrating an empty database builds is test/db/schema.sql', async () => {
    // schema.sql was first generated from the eighteen migrations the baseline replaced; a
    // change since is a reviewed diff of that file (regenerate it with test/db/schemaDump.ts).
    expect(await dumpFreshlyMigrated(inject('postgresUrl'))).toBe(fs.readFileSync(SNAPSHOT_FILE, 'utf8'));
  });

  it('is built by the migrations, then every function file, once', async () => {
    const sql = await emptyDatabase();
    expect(await migrate(sql)).toEqual([...MIGRATION_FILES, ...ALL_FUNCTION_STEPS]);
    expect(await migrate(sql)).toEqual([]);
    const recorded = await sql<{ name: string; hash: string }[]>`select name, hash from schema_functions order by name`;
    expect(recorded).toEqual(
      FUNCTION_FILES.map((name) => ({
        name,
        hash: createHash('sha256')
          .update(fs.readFileSync(path.join(SRC_DB, 'functions', name)))
          .digest('hex'),
      })),
    );
  });
});

describe('a versioned migration', () => {
  it('defines no function: functions, and the triggers that run them, live in function files', () => {
    const defining = MIGRATION_FILES.filter((name) =>
      /create\s+(or\s+replace\s+)?function/i.test(fs.readFileSync(path.join(SRC_DB, 'migrations', name), 'utf8')),
    );
    expect(defining).toEqual([]);
  });
});

describe('a function file', () => {
  it('is applied again when its content changes, and an unchanged one is not', async () => {
    const sql = await emptyDatabase();
    const functionsDir = copyOf('functions');
    await migrate(sql, { functionsDir });
    const before = await functionVersions(sql);
    expect(await migrate(sql, { functionsDir })).toEqual([]);
    expect(await functionVersions(sql)).toEqual(before);

    const file = path.join(functionsDir, 'account_paths.sql');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('select replace(replace(replace(p_text,');
    fs.writeFileSync(
      file,
      text.replace('select replace(replace(replace(p_text,', 'select /* changed */ replace(replace(replace(p_text,'),
    );

    expect(await migrate(sql, { functionsDir })).toEqual(['functions/account_paths.sql']);
    const after = await functionVersions(sql);
    const replaced = [...after.keys()].filter((name) => after.get(name) !== before.get(name)).sort();
    expect(replaced).toEqual(['chart_path_pattern', 'like_prefix']);
    const [{ def }] = await sql<{ def: string }[]>`select pg_get_functiondef('like_prefix(text)'::regprocedure) as def`;
    expect(def).toContain('/* changed */');
    const [{ hash }] = await sql<
      { hash: string }[]
    >`select hash from schema_functions where name = 'account_paths.sql'`;
    expect(hash).toBe(createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
    expect(await migrate(sql, { functionsDir })).toEqual([]);
  });

  it('is applied again, changed or not, after a versioned migration (which may have dropped one of its functions)', async () => {
    const sql = await emptyDatabase();
    const migrationsDir = copyOf('migrations');
    await migrate(sql, { migrationsDir });
    fs.writeFileSync(
      path.join(migrationsDir, '20991231T000000_drop_like_prefix.sql'),
      'drop function like_prefix(text);\n',
    );
    expect(await migrate(sql, { migrationsDir })).toEqual([
      '20991231T000000_drop_like_prefix.sql',
      ...ALL_FUNCTION_STEPS,
    ]);
    const [{ pattern }] = await sql<{ pattern: string }[]>`select like_prefix('a_b%') as pattern`;
    expect(pattern).toBe('a\\_b\\%');
  });

  it('that fails leaves nothing applied: the migration runs all or none', async () => {
    const sql = await emptyDatabase();
    const functionsDir = copyOf('functions');
    fs.appendFileSync(
      path.join(functionsDir, 'reversal.sql'),
      '\ncreate or replace function broken() returns int language sql as $$ select nope $$;\n',
    );
    await expect(migrate(sql, { functionsDir })).rejects.toThrow(/nope/);
    const [{ tables }] = await sql<{ tables: number }[]>`
      select count(*)::int as tables from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r'`;
    expect(tables).toBe(0);
  });
});

describe('a database built before the baseline', () => {
  /** A database as the eighteen squashed migrations left it: their names, no schema_functions, older function text. */
  async function builtBeforeTheBaseline(): Promise<Sql> {
    const sql = await emptyDatabase();
    await migrate(sql);
    await sql`drop table schema_functions`;
    await sql`delete from schema_migrations`;
    await sql`insert into schema_migrations (name) select unnest(${SQUASHED_INTO_BASELINE as string[]}::text[])`;
    await sql`create or replace function like_prefix(p_text text) returns text language sql immutable as $$ select p_text $$`;
    return sql;
  }

  it('is adopted at the baseline and ends identical to a new one', async () => {
    const sql = await builtBeforeTheBaseline();
    expect(await migrate(sql)).toEqual([
      '20261128T000000_baseline.sql (adopted: the database was built by the migrations it replaced)',
      ...MIGRATION_FILES.filter((name) => name !== '20261128T000000_baseline.sql'),
      ...ALL_FUNCTION_STEPS,
    ]);
    expect(await dumpSchema(sql)).toBe(fs.readFileSync(SNAPSHOT_FILE, 'utf8'));
    expect((await sql`select name from schema_migrations order by name`).map((row) => row.name)).toEqual(
      MIGRATION_FILES,
    );
    expect(await migrate(sql)).toEqual([]);
  });

  it('is refused, with what to do, when it lists only some of the replaced migrations or others', async () => {
    const partial = await builtBeforeTheBaseline();
    await partial`delete from schema_migrations where name = ${SQUASHED_INTO_BASELINE.at(-1)!}`;
    await expect(migrate(partial)).rejects.toThrow(UnknownMigrationsError);

    const other = await emptyDatabase();
    await migrate(other);
    await other`insert into schema_migrations (name) values ('20261201T000000_from_another_branch.sql')`;
    const refusal = migrate(other);
    await expect(refusal).rejects.toThrow(UnknownMigrationsError);
    await expect(refusal).rejects.toThrow(/20261201T000000_from_another_branch\.sql.*make clean-data/);
  });
});

describe('the migration that moves product roles onto the product', () => {
  it('carries every product role over, in order, by relation', async () => {
    const sql = await emptyDatabase();
    const before = copyOf('migrations');
    fs.rmSync(path.join(before, '20261206T010000_product_roles_on_the_product.sql'));
    await migrate(sql, { migrationsDir: before });
    await sql`insert into workspaces (id, name) values ('w', 'w')`;
    await sql`insert into billing_roles (workspace_id, id, name) values ('w', 'r1', 'buyer'), ('w', 'r2', 'payer'), ('w', 'r3', 'seller')`;
    await sql`insert into products (workspace_id, id, code, description) values ('w', 'p1', 'P1', 'roles'), ('w', 'p2', 'P2', 'none')`;
    await sql`
      insert into product_roles (workspace_id, product_id, relation, position, role_id)
      values ('w', 'p1', 'paid_by', 1, 'r2'), ('w', 'p1', 'paid_by', 0, 'r1'), ('w', 'p1', 'paid_to', 0, 'r3')`;

    await migrate(sql);
    const products = await sql<{ id: string; paidBy: unknown; paidTo: unknown }[]>`
      select id, paid_by_roles as "paidBy", paid_to_roles as "paidTo" from products order by id`;
    expect(products).toEqual([
      {
        id: 'p1',
        paidBy: [
          { id: 'r1', name: 'buyer' },
          { id: 'r2', name: 'payer' },
        ],
        paidTo: [{ id: 'r3', name: 'seller' }],
      },
      { id: 'p2', paidBy: [], paidTo: [] },
    ]);
    const [{ left }] = await sql<{ left: string | null }[]>`select to_regclass('product_roles')::text as left`;
    expect(left).toBeNull();
  });
});
