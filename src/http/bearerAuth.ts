import type { Middleware } from 'koa';
import { DomainError } from '../core/errors.js';
import { verifyToken } from '../core/tokens.js';
import type { AppState, Caller } from './context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The caller named by an `Authorization: Bearer` header with a valid, unexpired token. */
export function callerOf(authorization: string | undefined, signingKey: Buffer): Caller | undefined {
  const match = BEARER.exec(authorization ?? '');
  const claims = match ? verifyToken(match[1], signingKey, Math.floor(Date.now() / 1000)) : undefined;
  return claims && { workspaceId: claims.workspaceId, clientId: claims.clientId };
}

/** Requires a valid access token and records whose it is; the workspace scopes everything after. */
export function bearerAuth(signingKey: Buffer): Middleware<AppState> {
  return async (ctx, next) => {
    const caller = callerOf(ctx.get('authorization'), signingKey);
    if (!caller) throw new DomainError('unauthorized', 'A valid access token is required: send Authorization: Bearer <token>.');
    ctx.state.caller = caller;
    await next();
  };
}
