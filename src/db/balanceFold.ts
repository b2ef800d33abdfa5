import type { Db } from './sql.js';

export type FoldOutcome = { folded: number; oldest: Date | null };

/**
 * Folds up to `limit` queued balance deltas in one transaction (fold_ledger_balance_queue): of
 * every workspace the sandbox does not hold back, or of the one named (a settle, held or not).
 */
export async function foldBalanceQueue(db: Db, limit: number, workspaceId: string | null = null): Promise<FoldOutcome> {
  const [row] = await db<FoldOutcome[]>`
    /* foldBalanceQueue */ select folded, oldest from fold_ledger_balance_queue(${limit}, ${workspaceId}::text)`;
  return row;
}

/** Moves the workspace's open hours (add_to_balance_rows) into the queue; answers how many. */
export async function closeOpenHours(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db<{ closed: number }[]>`
    /* closeOpenHours */ select close_open_hours(${workspaceId}) as closed`;
  return row.closed;
}

/** Deltas of one workspace the fold has not taken yet. */
export async function pendingDeltas(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db<{ pending: number }[]>`
    /* pendingDeltas */ select count(*)::int as pending from ledger_balance_queue where workspace_id = ${workspaceId}`;
  return row.pending;
}

export type QueueState = { pending: number; lagSeconds: number };

/** How many deltas wait for the fold, and how long the oldest has waited. */
export async function balanceQueueState(db: Db): Promise<QueueState> {
  const [row] = await db<{ pending: number; lagSeconds: number | null }[]>`
    /* balanceQueueState */
    select count(*)::int as pending, extract(epoch from clock_timestamp() - min(enqueued))::float8 as "lagSeconds"
    from ledger_balance_queue`;
  return { pending: row.pending, lagSeconds: row.lagSeconds ?? 0 };
}
