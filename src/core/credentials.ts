import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

// scrypt with N=2^14, r=8, p=1: ~30 ms a check, paid once per token request, not per API call.
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEY_LENGTH, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export function verifySecret(secret: string, stored: string): boolean {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = scryptSync(secret, Buffer.from(salt, 'base64url'), expected.length,
    { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected);
}

/** A fresh client secret: 32 random bytes, URL-safe. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A fresh client id: readable prefix plus 16 random bytes. */
export function newClientId(): string {
  return `client_${randomBytes(12).toString('hex')}`;
}
