import type { AddressInfo } from 'node:net';
import { createApp, type AppOptions } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { startBalanceFold } from '../../src/ledger/accounts/balanceFoldWorker.js';
import { silentLogger } from '../../src/observability/log.js';

export type InProcessTally = {
  sql: Awaited<ReturnType<typeof openDatabase>>['sql'];
  baseUrl: string;
  stop(): Promise<void>;
};

/** The app in the benchmark's process over an ephemeral embedded database, as `TALLY_EPHEMERAL=1 make run`. */
export async function startInProcessTally(options: Partial<AppOptions> = {}): Promise<InProcessTally> {
  const database = await openDatabase({ ephemeral: true, dataDir: '', poolMax: 10, log: () => {} });
  const { sql } = database;
  const app = await createApp({
    sql,
    signingKey: await tokenSigningKey(sql),
    tokenTtlSeconds: 3600,
    log: silentLogger,
    ...options,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const fold = startBalanceFold(sql, silentLogger, { intervalMs: 50, batchSize: 5000 });
  return {
    sql,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.close();
      await fold.stop();
      await database.close();
    },
  };
}

/** Waits until the fold has taken every queued balance delta of the workspace. */
export async function settleFold(sql: InProcessTally['sql'], workspaceId: string): Promise<void> {
  for (;;) {
    const [{ pending }] = await sql<{ pending: number }[]>`
      select count(*)::int as pending from ledger_balance_queue where workspace_id = ${workspaceId}`;
    if (pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
