import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt with N=2^14, r=8, p=1: ~30 ms of CPU a check. It runs on libuv's thread pool (never on
// the event loop), and only once per client and secret while the process lives (SecretVerifier).
const N = 16384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** A hash for a secret a person chose (BOOTSTRAP_CLIENT_SECRET): slow, so guessing it stays costly. */
export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEY_LENGTH, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * A hash for a secret Tally generated (newClientSecret: 256 random bits). Nothing can be guessed
 * about such a secret, so a slow KDF buys nothing; a plain SHA-256 keeps client creation and the
 * first token fetch at microseconds (the sandbox creates a workspace and client per test).
 */
export function hashGeneratedSecret(secret: string): string {
  return `sha256$${createHash('sha256').update(secret).digest('base64url')}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  if (stored.startsWith('sha256$')) {
    const expected = Buffer.from(stored.slice('sha256$'.length), 'base64url');
    return expected.length === 32 && timingSafeEqual(createHash('sha256').update(secret).digest(), expected);
  }
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}

function scryptAsync(secret: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export type SecretVerifier = (clientId: string, secret: string, storedHash: string) => Promise<boolean>;

/**
 * verifySecret with a memory of secrets already proven: SDKs fetch a token per process start and
 * per hour, often many at once. Remembered is a SHA-256 of the secret (client secrets carry 256
 * random bits, so it reveals nothing useful) tied to the stored hash, so a rotated secret is
 * checked afresh. Wrong secrets are never remembered: each pays the full scrypt.
 */
export function secretVerifier(maxClients = 10_000): SecretVerifier {
  const proven = new Map<string, { storedHash: string; digest: Buffer }>();
  const digestOf = (secret: string) => createHash('sha256').update(secret).digest();
  return async (clientId, secret, storedHash) => {
    const known = proven.get(clientId);
    const digest = digestOf(secret);
    if (known && known.storedHash === storedHash && timingSafeEqual(known.digest, digest)) return true;
    if (!(await verifySecret(secret, storedHash))) return false;
    proven.delete(clientId);
    proven.set(clientId, { storedHash, digest });
    if (proven.size > maxClients) proven.delete(proven.keys().next().value!);
    return true;
  };
}

/** A fresh client secret: 32 random bytes, URL-safe. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A fresh client id: readable prefix plus 12 random bytes (an identifier, not a secret). */
export function newClientId(): string {
  return `client_${randomBytes(12).toString('hex')}`;
}
