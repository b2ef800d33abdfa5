import type { Middleware } from 'koa';
import { DomainError } from '../core/errors.js';
import type { Sql } from '../db/sql.js';
import type { AppState } from './context.js';

export const healthz: Middleware<AppState> = (ctx) => {
  ctx.body = { status: 'ok' };
};

/** Ready means the database answers: a load balancer should not send traffic before that. */
export function readyz(sql: Sql): Middleware<AppState> {
  return async (ctx) => {
    try {
      await Promise.race([
        sql`select 1`,
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
    } catch {
      throw new DomainError('service_unavailable', 'The database is not reachable.');
    }
    ctx.body = { status: 'ready' };
  };
}
