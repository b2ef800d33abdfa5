import type { Middleware } from 'koa';
import { DomainError } from '../core/errors.js';
import { callerOf } from '../http/bearerAuth.js';
import type { AppState } from '../http/context.js';
import type { InFlightLimiter } from '../http/inFlight.js';

/** Bearer auth and admission for /graphql; failures are thrown for graphqlErrors to render. */
export function graphqlAuth(signingKey: Buffer, limiter: InFlightLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.caller = callerOf(ctx.get('authorization'), signingKey);
    if (!ctx.state.caller) {
      throw new DomainError('unauthorized', 'A valid access token is required: send Authorization: Bearer <token>.');
    }
    limiter.admit(ctx);
    await next();
  };
}
