import { verifyToken } from '../core/tokens.js';
import type { Caller } from './context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The caller named by an `Authorization: Bearer` header with a valid, unexpired token. */
export function callerOf(authorization: string | undefined, signingKey: Buffer): Caller | undefined {
  const match = BEARER.exec(authorization ?? '');
  const claims = match ? verifyToken(match[1], signingKey, Math.floor(Date.now() / 1000)) : undefined;
  return claims && { workspaceId: claims.workspaceId, clientId: claims.clientId };
}
