import { createHmac, timingSafeEqual } from 'node:crypto';

// Access tokens are self-contained and signed (HMAC-SHA256), so checking one costs no database
// round trip and every process sharing the signing key accepts every other's tokens.

export type TokenClaims = { workspaceId: string; clientId: string; expiresAt: number };

const PREFIX = 'tly1';

export function issueToken(claims: TokenClaims, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify([claims.workspaceId, claims.clientId, claims.expiresAt]))
    .toString('base64url');
  return `${PREFIX}.${payload}.${sign(payload, key)}`;
}

/** The claims of a well-signed, unexpired token; undefined for anything else. */
export function verifyToken(token: string, key: Buffer, nowSeconds: number): TokenClaims | undefined {
  const [prefix, payload, signature] = token.split('.');
  if (prefix !== PREFIX || !payload || !signature) return undefined;
  const expected = Buffer.from(sign(payload, key));
  const actual = Buffer.from(signature);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  try {
    const [workspaceId, clientId, expiresAt] = JSON.parse(Buffer.from(payload, 'base64url').toString());
    if (typeof workspaceId !== 'string' || typeof clientId !== 'string' || typeof expiresAt !== 'number') {
      return undefined;
    }
    return expiresAt > nowSeconds ? { workspaceId, clientId, expiresAt } : undefined;
  } catch {
    return undefined;
  }
}

function sign(payload: string, key: Buffer): string {
  return createHmac('sha256', key).update(`${PREFIX}.${payload}`).digest('base64url');
}
