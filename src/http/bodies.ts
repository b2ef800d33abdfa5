import { bodyParser } from '@koa/bodyparser';
import type { Middleware, Next } from 'koa';
import type { AppContext, AppState } from './context.js';
import { toDomainError } from './errors.js';
import { isPlainJson, readPlainJson } from './plainJsonBody.js';

export const BODY_LIMIT = '1mb';
const BODY_LIMIT_BYTES = 1024 * 1024;
const METHODS_WITH_BODIES = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads JSON and form bodies for every route, but keeps a failure (malformed JSON, too large)
 * for later: routing and authentication answer first, so a request that breaks several rules
 * always gets the same answer (the order the billing contract documents). Plain JSON takes a
 * lean reader; other JSON types, forms, charsets and compressed bodies go through @koa/bodyparser.
 */
export function readBodies(): Middleware<AppState> {
  const general = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: BODY_LIMIT,
    formLimit: BODY_LIMIT,
    onError: (error, ctx) => {
      (ctx as AppContext).state.bodyError = error;
    },
  }) as (ctx: AppContext, next: Next) => Promise<void>;
  const readJson = async (ctx: AppContext, next: Next) => {
    try {
      ctx.request.body = await readPlainJson(ctx.req, BODY_LIMIT_BYTES);
    } catch (error) {
      ctx.state.bodyError = error;
    }
    await next();
  };
  // Not async itself: a GET passes through with no promise of this middleware's own.
  return (ctx, next) =>
    METHODS_WITH_BODIES.has(ctx.method) && isPlainJson(ctx.req) ? readJson(ctx, next) : general(ctx, next);
}

/** Throws the typed error of a body that could not be read, if any. */
export function rejectUnreadBody(ctx: AppContext): void {
  if (ctx.state.bodyError) throw toDomainError(ctx.state.bodyError);
}

export const requireReadableBody: Middleware<AppState> = async (ctx, next) => {
  rejectUnreadBody(ctx);
  await next();
};
