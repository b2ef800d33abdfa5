import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { EmbeddedPostgres } from '../../src/db/embedded.js';
import { stopTally, type TallyProcess } from './tallyProcess.js';

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
  return {
    running,
    databases,
    /** A folder the postgres user can reach, removed after the file. */
    temporaryFolder(): string {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      fs.chmodSync(folder, 0o755);
      folders.push(folder);
      return folder;
    },
  };
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
