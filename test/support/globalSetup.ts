import type { TestProject } from 'vitest/node';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { migrate } from '../../src/db/migrate.js';
import { connect } from '../../src/db/sql.js';

export const TEMPLATE_DATABASE = 'tally_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A maintenance URL of the test PostgreSQL server. */
    postgresUrl: string;
  }
}

/**
 * One real PostgreSQL for the whole run: the embedded one (fsync off), or TEST_DATABASE_URL's
 * server. Migrations run once into a template; each test file clones it (see database.ts).
 */
export default async function setup(project: TestProject) {
  const external = process.env.TEST_DATABASE_URL;
  const embedded = external ? undefined : await startEmbeddedPostgres({ dataDir: '', ephemeral: true, fast: true });
  const postgresUrl = external ?? embedded!.url;

  const admin = connect(postgresUrl, { max: 1 });
  await admin`drop database if exists ${admin(TEMPLATE_DATABASE)} with (force)`;
  await admin.end();
  const templateUrl = await ensureDatabase(postgresUrl, TEMPLATE_DATABASE);
  const template = connect(templateUrl, { max: 1 });
  await migrate(template);
  await template.end();

  project.provide('postgresUrl', postgresUrl);
  return async () => {
    await embedded?.stop();
  };
}
