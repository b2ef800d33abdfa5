import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import type { AppContext, AppState } from './context.js';
import { toDomainError } from './errors.js';

export const BODY_LIMIT = '1mb';

/**
 * Reads JSON and form bodies for every route, but keeps a failure (malformed JSON, too large)
 * for later: routing and authentication answer first, so a request that breaks several rules
 * always gets the same answer (the order the billing contract documents).
 */
export function readBodies(): Middleware<AppState> {
  return bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: BODY_LIMIT,
    formLimit: BODY_LIMIT,
    onError: (error, ctx) => {
      (ctx as AppContext).state.bodyError = error;
    },
  }) as Middleware<AppState>;
}

/** Throws the typed error of a body that could not be read, if any. */
export function rejectUnreadBody(ctx: AppContext): void {
  if (ctx.state.bodyError) throw toDomainError(ctx.state.bodyError);
}

export const requireReadableBody: Middleware<AppState> = async (ctx, next) => {
  rejectUnreadBody(ctx);
  await next();
};
