import { foldBalanceQueue } from '../../db/balanceFold.js';
import type { Sql } from '../../db/sql.js';
import { expectedFailure } from '../../db/errors.js';
import type { Logger } from '../../observability/log.js';
import { balanceFoldRows } from '../../observability/metrics.js';

// The background fold of eventual balance updates: queued deltas move into stored balances and
// buckets in batches, each batch one transaction. A full batch means more are waiting, so the
// next runs at once; otherwise the fold sleeps for the interval. Every Tally process sharing a
// database runs this worker; one fold runs at a time among them (fold_ledger_balance_queue).

export type BalanceFoldOptions = { intervalMs: number; batchSize: number };

export type BalanceFold = { stop(): Promise<void> };

export function startBalanceFold(sql: Sql, log: Logger, options: BalanceFoldOptions): BalanceFold {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const pass = async (): Promise<boolean> => {
    try {
      const { folded, oldest } = await foldBalanceQueue(sql, options.batchSize);
      if (folded === 0) return false;
      balanceFoldRows.inc(folded);
      log.info('balance fold', { folded, lag_ms: oldest ? Math.max(0, Date.now() - oldest.getTime()) : 0 });
      return folded === options.batchSize;
    } catch (error) {
      // The database away, a timeout: the batch rolled back whole and the next pass retries it.
      const known = expectedFailure(error);
      log.warn('balance fold failed; retrying', {
        code: known?.code ?? 'internal_error',
        error: known ? undefined : String(error),
      });
      return false;
    }
  };

  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().then((more) => schedule(more ? 0 : options.intervalMs));
    }, delay);
    timer.unref();
  };
  schedule(0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
