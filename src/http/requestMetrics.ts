import type { RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import { registry, requestDuration, requests } from '../observability/metrics.js';
import type { AppState } from './context.js';

/** What @koa/router leaves on the context when a route matched: the route's path pattern. */
type MatchedRoute = Pick<RouterContext, '_matchedRoute'>;

/**
 * Records every request once answered; `ctx.state.operation` is set by the API that served it.
 * The time is also told to the client as `Server-Timing: app;dur=<ms>` (browsers' dev tools show
 * it; benchmarks read it to separate server time from the network).
 */
export function requestMetrics(): Middleware<AppState, MatchedRoute> {
  return async (ctx, next) => {
    const stop = requestDuration.startTimer();
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.set('Server-Timing', `app;dur=${(performance.now() - started).toFixed(2)}`);
      // Paths come from clients: a label is an operation id or a matched route, never a raw path.
      const route = ctx._matchedRoute;
      const operation =
        ctx.state.operation ?? (typeof route === 'string' ? route : ctx.status === 404 ? 'unknown_route' : 'other');
      stop({ operation });
      requests.inc({ operation, method: ctx.method, status: String(ctx.status) });
    }
  };
}

/** GET /metrics in the Prometheus text format. */
export const serveMetrics: Middleware<AppState> = async (ctx) => {
  ctx.type = registry.contentType;
  ctx.body = await registry.metrics();
};
