import { createHmac, timingSafeEqual } from 'node:crypto';

// Access tokens are self-contained and signed (HMAC-SHA256), so checking one costs no database
// round trip and every process sharing the signing key accepts every other's tokens.

export type TokenClaims = { workspaceId: string; clientId: string; expiresAt: number };

const PREFIX = 'tly1';

export function issueToken(claims: TokenClaims, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify([claims.workspaceId, claims.clientId, claims.expiresAt])).toString(
    'base64url',
  );
  return `${PREFIX}.${payload}.${sign(payload, key)}`;
}

/** What a presented token is: its claims, or why it is refused (a well-signed token past its time is `expired`). */
export type TokenCheck = { claims: TokenClaims } | { refused: 'invalid' | 'expired' };

export function checkToken(token: string, key: Buffer, nowSeconds: number): TokenCheck {
  const remembered = provenTokens(key);
  const known = remembered.get(token);
  if (known) {
    if (known.expiresAt > nowSeconds) return { claims: known };
    remembered.delete(token);
    return { refused: 'expired' };
  }
  const checked = checkSignedToken(token, key, nowSeconds);
  if ('claims' in checked) remember(remembered, token, checked.claims);
  return checked;
}

// Tokens whose signature was checked, per signing key: a client sends the same token for up to an
// hour, and its HMAC was a tenth of the server's CPU on a small read. Bounded; oldest out first.
const PROVEN_TOKENS_KEPT = 10_000;
const provenByKey = new WeakMap<Buffer, Map<string, TokenClaims>>();

function provenTokens(key: Buffer): Map<string, TokenClaims> {
  let proven = provenByKey.get(key);
  if (!proven) {
    proven = new Map<string, TokenClaims>();
    provenByKey.set(key, proven);
  }
  return proven;
}

function remember(proven: Map<string, TokenClaims>, token: string, claims: TokenClaims): void {
  if (proven.size >= PROVEN_TOKENS_KEPT) proven.delete(proven.keys().next().value!);
  proven.set(token, claims);
}

function checkSignedToken(token: string, key: Buffer, nowSeconds: number): TokenCheck {
  const [prefix, payload, signature, ...rest] = token.split('.');
  if (prefix !== PREFIX || !payload || !signature || rest.length > 0) return { refused: 'invalid' };
  const expected = Buffer.from(sign(payload, key));
  const actual = Buffer.from(signature);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { refused: 'invalid' };
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString());
    if (!Array.isArray(claims)) return { refused: 'invalid' };
    const [workspaceId, clientId, expiresAt] = claims as unknown[];
    if (typeof workspaceId !== 'string' || typeof clientId !== 'string' || typeof expiresAt !== 'number') {
      return { refused: 'invalid' };
    }
    return expiresAt > nowSeconds ? { claims: { workspaceId, clientId, expiresAt } } : { refused: 'expired' };
  } catch {
    return { refused: 'invalid' };
  }
}

/** The claims of a well-signed, unexpired token; undefined for anything else. */
export function verifyToken(token: string, key: Buffer, nowSeconds: number): TokenClaims | undefined {
  const checked = checkToken(token, key, nowSeconds);
  return 'claims' in checked ? checked.claims : undefined;
}

function sign(payload: string, key: Buffer): string {
  return createHmac('sha256', key).update(`${PREFIX}.${payload}`).digest('base64url');
}
