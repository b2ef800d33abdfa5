import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import type { Logger } from '../observability/log.js';

const ACCEPTABLE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Gives every request an id (the caller's X-Request-Id when sane), echoes it, and logs the outcome. */
export function requestLog(log: Logger): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      log.info('request', {
        request_id: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        workspace_id: ctx.state.caller?.workspaceId,
      });
    }
  };
}
