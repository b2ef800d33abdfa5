import { scryptSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashGeneratedSecret,
  hashSecret,
  newClientId,
  newClientSecret,
  secretVerifier,
  verifySecret,
} from '../../src/core/credentials.js';

// scrypt$N$r$p$salt$hash, salt and hash in base64url: 16 bytes of salt, 32 of hash.
const STORED = /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/;

describe('client secrets', () => {
  it('verifies the right secret and nothing else', async () => {
    const stored = hashSecret('s3cret');
    expect(stored).toMatch(STORED);
    expect(stored).not.toContain('s3cret');
    expect(await verifySecret('s3cret', stored)).toBe(true);
    expect(await verifySecret('s3cret!', stored)).toBe(false);
  });

  it('hashes a generated secret with SHA-256 and still verifies only that secret', async () => {
    const secret = newClientSecret();
    const stored = hashGeneratedSecret(secret);
    expect(stored).toMatch(/^sha256\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain(secret);
    expect(await verifySecret(secret, stored)).toBe(true);
    expect(await verifySecret(`${secret}x`, stored)).toBe(false);
    expect(await verifySecret(secret, 'sha256$short')).toBe(false);
  });

  it('remembers a proven secret only for the stored hash it was proven against', async () => {
    const verify = secretVerifier();
    const first = hashSecret('s3cret');
    expect(await verify('c1', 's3cret', first)).toBe(true);
    expect(await verify('c1', 's3cret!', first)).toBe(false);
    expect(await verify('c1', 's3cret', first)).toBe(true);
    // A rotated secret: the remembered proof no longer applies in either direction.
    const rotated = hashSecret('n3w');
    expect(await verify('c1', 's3cret', rotated)).toBe(false);
    expect(await verify('c1', 'n3w', rotated)).toBe(true);
    expect(await verify('c2', 'n3w', first)).toBe(false);
  });

  it('hashes off the event loop: timers keep firing while scrypt runs', async () => {
    const stored = hashSecret('s3cret');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await Promise.all(Array.from({ length: 8 }, () => verifySecret('s3cret', stored)));
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it('salts every hash afresh, so equal secrets do not show as equal rows', () => {
    const [a, b] = [hashSecret('s3cret'), hashSecret('s3cret')];
    expect(a).toMatch(STORED);
    expect(b).toMatch(STORED);
    expect(a.split('$')[4]).not.toBe(b.split('$')[4]);
  });

  // The row carries its own cost parameters, so hashes stored before a change of N stay usable.
  it('checks a stored hash with the parameters and salt written in it', async () => {
    const salt = Buffer.from('a fixed salt 16b');
    const hash = scryptSync('old', salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = `scrypt$1024$8$1$${salt.toString('base64url')}$${hash.toString('base64url')}`;
    expect(await verifySecret('old', stored)).toBe(true);
    expect(await verifySecret('olD', stored)).toBe(false);
    expect(await verifySecret('old', stored.replace('scrypt$1024$', 'scrypt$2048$'))).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['another scheme', 'bcrypt$16384$8$1$c2FsdA$aGFzaA'],
    ['no salt', 'scrypt$16384$8$1$$aGFzaA'],
    ['no hash', 'scrypt$16384$8$1$c2FsdA$'],
    ['the secret itself', 's3cret'],
  ])('refuses a stored value that is %s', async (_name, stored) => {
    expect(await verifySecret('s3cret', stored)).toBe(false);
  });

  it('proves any secret and refuses any other', async () => {
    // Few runs: each costs three scrypt computations of ~30 ms.
    const secretArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(secretArb, fc.string({ maxLength: 4 }), async (secret, other) => {
        fc.pre(other !== secret);
        const stored = hashSecret(secret);
        expect(await verifySecret(secret, stored)).toBe(true);
        expect(await verifySecret(other, stored)).toBe(false);
      }),
      { numRuns: 10 },
    );
  });
});

describe('fresh client credentials', () => {
  it('makes secrets of 32 random bytes in base64url, never the same twice', () => {
    const secrets = Array.from({ length: 20 }, () => newClientSecret());
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url').length).toBe(32);
    }
    expect(new Set(secrets).size).toBe(20);
  });

  it('makes client ids of client_ and 24 hex digits, never the same twice', () => {
    const ids = Array.from({ length: 20 }, () => newClientId());
    for (const id of ids) expect(id).toMatch(/^client_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(20);
  });
});
