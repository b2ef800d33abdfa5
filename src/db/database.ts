import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.js';
import { domainErrorFromDatabase } from './errors.js';
import { migrate } from './migrate.js';
import { connect, type Sql } from './sql.js';

export type Database = { sql: Sql; url: string; close(): Promise<void> };

export type DatabaseOptions = {
  databaseUrl?: string;
  ephemeral: boolean;
  dataDir: string;
  poolMax: number;
  /** statement_timeout of the pool's connections (the request time budget); 0: none. */
  statementTimeoutMs?: number;
  /** Seconds to wait for a connection before a request answers 503. */
  connectTimeoutSeconds?: number;
  /** Keep retrying while the database cannot be reached (the server: it answers 503 meanwhile); else fail at once. */
  waitUntilReachable?: boolean;
  /** The embedded database's folder is owned by another running Tally: refuse, or share it (admin CLI). */
  whenOwned?: 'refuse' | 'share';
  log: (message: string) => void;
};

const DATABASE_NAME = 'tally';

/** Connects to DATABASE_URL, or starts the embedded server; then applies pending migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let url = options.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: options.dataDir,
      ephemeral: options.ephemeral,
      fast: options.ephemeral,
      whenOwned: options.whenOwned,
      log: options.log,
    });
    url = await ensureDatabase(embedded.url, DATABASE_NAME);
  }
  const sql = connect(url, {
    max: options.poolMax,
    statementTimeoutMs: options.statementTimeoutMs,
    connectTimeoutSeconds: options.connectTimeoutSeconds,
  });
  try {
    const applied = await (options.waitUntilReachable ? migrateWhenReachable(sql, options.log) : migrate(sql));
    if (applied.length > 0) options.log(`applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    await sql.end();
    await embedded?.stop();
    throw error;
  }
  return {
    sql,
    url,
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}

const RETRY_DELAY_MAX_MS = 5000;

/** A server started before its database (a host booting, a database restarting) waits for it. */
async function migrateWhenReachable(sql: Sql, log: (message: string) => void): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await migrate(sql);
    } catch (error) {
      if (domainErrorFromDatabase(error)?.code !== 'service_unavailable') throw error;
      const delay = Math.min(250 * 2 ** attempt, RETRY_DELAY_MAX_MS);
      log(`the database is not reachable yet (${(error as { code?: string }).code}); retrying in ${delay} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Creates `name` on the server behind `maintenanceUrl` if missing; returns its URL. */
export async function ensureDatabase(maintenanceUrl: string, name: string, template?: string): Promise<string> {
  const admin = connect(maintenanceUrl, { max: 1 });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      await (template
        ? admin`create database ${admin(name)} template ${admin(template)}`
        : admin`create database ${admin(name)}`);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(maintenanceUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
