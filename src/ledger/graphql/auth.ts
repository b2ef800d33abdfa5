import type { Middleware } from 'koa';
import { checkBearer, type BearerTokens } from '../../http/bearerAuth.js';
import type { AppState } from '../../http/context.js';
import type { InFlightLimiter } from '../../http/inFlight.js';

/** Bearer auth and admission for /graphql; failures are thrown for graphqlErrors to render. */
export function graphqlAuth(tokens: BearerTokens, limiter: InFlightLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    const checked = checkBearer(ctx.get('authorization'), tokens);
    if ('refusal' in checked) throw checked.refusal;
    ctx.state.caller = checked.caller;
    limiter.admit(ctx);
    await next();
  };
}
