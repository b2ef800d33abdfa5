import type postgres from 'postgres';
import type { Sql } from './sql.js';

// Why: postgres.js rolls a transaction back only when its callback throws, so ending one with a
// typed outcome (a refused entry, a key taken meanwhile) takes a throw and a catch; this module
// holds the one marker for it, instead of a sentinel Error class in each caller.

class RolledBack extends Error {
  constructor() {
    super('transaction rolled back with an outcome');
  }
}

export type RollbackScope<R> = {
  /** Ends the enclosing work by throwing: a transaction it runs in rolls back. */
  rollback: (outcome: R) => never;
  /** The outcome `error` carries, when this scope's `rollback` threw it. */
  outcomeOf: (error: unknown) => { outcome: R } | undefined;
};

/** A rollback of its own: an outer scope never takes an inner scope's rollback for its own. */
export function rollbackScope<R>(): RollbackScope<R> {
  let thrown: { marker: RolledBack; outcome: R } | undefined;
  return {
    rollback: (outcome) => {
      thrown = { marker: new RolledBack(), outcome };
      throw thrown.marker;
    },
    outcomeOf: (error) => (thrown && error === thrown.marker ? { outcome: thrown.outcome } : undefined),
  };
}

export type TransactionResult<T, R> = { committed: T } | { rolledBack: R };

/**
 * Runs `body` in a transaction that either commits (`{ committed }`) or is ended by
 * `rollback(outcome)`: every write is undone and the call answers `{ rolledBack: outcome }`.
 * Any other error rolls back and propagates as usual.
 */
export async function transaction<T, R>(
  sql: Sql,
  body: (trx: postgres.TransactionSql, rollback: (outcome: R) => never) => Promise<T>,
): Promise<TransactionResult<T, R>> {
  const { rollback, outcomeOf } = rollbackScope<R>();
  try {
    return await sql.begin(async (trx): Promise<TransactionResult<T, R>> => ({ committed: await body(trx, rollback) }));
  } catch (error) {
    const ended = outcomeOf(error);
    if (ended) return { rolledBack: ended.outcome };
    throw error;
  }
}
