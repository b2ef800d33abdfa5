import { DomainError } from '../core/errors.js';
import { checkToken } from '../core/tokens.js';
import type { Caller } from './context.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BEARER_SCHEME = /^Bearer(\s|$)/i;

/**
 * A refused bearer token, with the RFC 6750 §3 challenge its 401 carries: no `error` attribute
 * when the request sent no bearer token at all, `error="invalid_token"` for a token that is not
 * valid, with a description saying whether it expired (a new token helps) or is not Tally's.
 */
export class BearerRefusal extends DomainError {
  readonly challenge: string;

  constructor(code: 'unauthorized' | 'token_expired', message: string, challenge: string) {
    super(code, message);
    this.challenge = challenge;
  }
}

/**
 * How bearer tokens are checked: the key they are signed with and, in the sandbox, the workspaces
 * whose tokens no longer count (deleted ones: a token is stateless, so it outlives its workspace).
 */
export type BearerTokens = {
  signingKey: Buffer;
  revoked?: (workspaceId: string) => boolean;
  /** A workspace's sandbox clock, which its tokens expire by; undefined: real time. */
  now?: (workspaceId: string) => Date | undefined;
};

const invalidToken = (description: string) => `Bearer error="invalid_token", error_description="${description}"`;

/** The caller named by an `Authorization: Bearer` header with a valid, unexpired token. */
export function callerOf(authorization: string | undefined, tokens: BearerTokens): Caller | undefined {
  const checked = checkBearer(authorization, tokens);
  return 'caller' in checked ? checked.caller : undefined;
}

/**
 * The caller, or why the request has none, as the error to answer: no bearer token
 * (`unauthorized`, plain `Bearer` challenge), a well-signed token past its expiry
 * (`token_expired`) or any other token (`unauthorized`), both with `error="invalid_token"`.
 */
export function checkBearer(
  authorization: string | undefined,
  tokens: BearerTokens,
): { caller: Caller } | { refusal: BearerRefusal } {
  const header = authorization ?? '';
  if (!BEARER_SCHEME.test(header)) return { refusal: missingToken() };
  const match = BEARER.exec(header);
  const checked = match ? checkExpiry(match[1], tokens) : { refused: 'invalid' as const };
  if ('claims' in checked) {
    const { workspaceId, clientId } = checked.claims;
    if (!tokens.revoked?.(workspaceId)) return { caller: { workspaceId, clientId } };
  } else if (checked.refused === 'expired') {
    return {
      refusal: new BearerRefusal(
        'token_expired',
        'The access token expired: obtain a new one from POST /oauth2/token.',
        invalidToken('The access token expired'),
      ),
    };
  }
  return {
    refusal: new BearerRefusal(
      'unauthorized',
      'The access token is not valid (malformed, or not issued by this server): obtain one from POST /oauth2/token.',
      invalidToken('The access token is malformed or was not issued by this server'),
    ),
  };
}

/** The token checked against real time or, for a workspace on a sandbox clock, against its clock. */
function checkExpiry(token: string, tokens: BearerTokens) {
  const realNow = Math.floor(Date.now() / 1000);
  if (!tokens.now) return checkToken(token, tokens.signingKey, realNow);
  // The signature first, with expiry set aside; then the expiry by the workspace's own time.
  const signed = checkToken(token, tokens.signingKey, 0);
  if (!('claims' in signed)) return signed;
  const clock = tokens.now(signed.claims.workspaceId);
  const now = clock ? Math.floor(clock.getTime() / 1000) : realNow;
  return signed.claims.expiresAt > now ? signed : { refused: 'expired' as const };
}

/** The error answering a request whose bearer check failed (see checkBearer). */
export function bearerRefusal(authorization: string | undefined, tokens: BearerTokens): BearerRefusal {
  const checked = checkBearer(authorization, tokens);
  return 'refusal' in checked ? checked.refusal : missingToken();
}

/** No bearer token at all (no Authorization header, or another scheme): a challenge without `error`. */
export function missingToken(): BearerRefusal {
  return new BearerRefusal(
    'unauthorized',
    'A valid access token is required: send Authorization: Bearer <token>.',
    'Bearer',
  );
}
