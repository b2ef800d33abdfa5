import type { Middleware } from 'koa';
import { DomainError } from '../core/errors.js';
import { verifyToken } from '../core/tokens.js';
import type { AppState } from './context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Requires a valid access token and records whose it is; the workspace scopes everything after. */
export function bearerAuth(signingKey: Buffer): Middleware<AppState> {
  return async (ctx, next) => {
    const match = BEARER.exec(ctx.get('authorization'));
    if (!match) throw new DomainError('unauthorized', 'An access token is required: send Authorization: Bearer <token>.');
    const claims = verifyToken(match[1], signingKey, Math.floor(Date.now() / 1000));
    if (!claims) throw new DomainError('unauthorized', 'The access token is invalid or has expired.');
    ctx.state.caller = { workspaceId: claims.workspaceId, clientId: claims.clientId };
    await next();
  };
}
