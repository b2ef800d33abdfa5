import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded.js';
import { freePort } from './ports.js';
import { startTally, stopTally, type TallyProcess } from './tallyProcess.js';
import { fetchToken } from './token.js';

// What the tests that break things share: temporary folders, and servers and databases that are
// stopped and removed after the file however its tests end.

export function outageScope(prefix: string) {
  const folders: string[] = [];
  const running: TallyProcess[] = [];
  const databases: EmbeddedPostgres[] = [];
  afterAll(async () => {
    for (const tally of running) await stopTally(tally, 'SIGKILL');
    for (const database of databases) await database.stop();
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });
  /** A folder the postgres user can reach, removed after the file. */
  const temporaryFolder = (): string => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    fs.chmodSync(folder, 0o755);
    folders.push(folder);
    return folder;
  };

  /**
   * A PostgreSQL of the test's own, which `start()` brings back on the same port after a stop,
   * and a Tally on it whose bootstrap client is boot / boot-secret.
   */
  const tallyOnOwnPostgres = async () => {
    const dataDir = temporaryFolder();
    const port = await freePort();
    const start = async () => {
      // Durable, as in production: with asynchronous commits an immediate shutdown loses the last
      // commits, the accounts a test just created among them, and the server rightly answers them gone.
      const database = await startEmbeddedPostgres({ dataDir, ephemeral: false, fast: false, port });
      databases.push(database);
      return database;
    };
    const database = await start();
    const url = await ensureDatabase(database.url, 'tally');
    const tally = await startTally({
      DATABASE_URL: url,
      BOOTSTRAP_CLIENT_ID: 'boot',
      BOOTSTRAP_CLIENT_SECRET: 'boot-secret',
      DATABASE_CONNECT_TIMEOUT_SECONDS: '2',
    });
    running.push(tally);
    return { database, url, tally, start, token: await fetchToken(tally.baseUrl, 'boot', 'boot-secret') };
  };

  return { running, databases, temporaryFolder, tallyOnOwnPostgres };
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
