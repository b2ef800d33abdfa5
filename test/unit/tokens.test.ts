import { describe, expect, it } from 'vitest';
import { hashSecret, secretVerifier, verifySecret } from '../../src/core/credentials.js';
import { ID_PATTERN, newId } from '../../src/core/ids.js';
import { checkToken, issueToken, verifyToken } from '../../src/core/tokens.js';

const key = Buffer.alloc(32, 7);
const claims = { workspaceId: 'ws_1', clientId: 'client_1', expiresAt: 2_000 };

describe('access tokens', () => {
  it('round-trips claims while unexpired', () => {
    expect(verifyToken(issueToken(claims, key), key, 1_999)).toEqual(claims);
  });

  it('rejects an expired token', () => {
    expect(verifyToken(issueToken(claims, key), key, 2_000)).toBeUndefined();
  });

  it('rejects a token signed with another key', () => {
    expect(verifyToken(issueToken(claims, Buffer.alloc(32, 8)), key, 0)).toBeUndefined();
  });

  it('rejects a token whose claims were edited', () => {
    const [prefix, , signature] = issueToken(claims, key).split('.');
    const forged = Buffer.from(JSON.stringify(['ws_2', 'client_1', 2_000])).toString('base64url');
    expect(verifyToken(`${prefix}.${forged}.${signature}`, key, 0)).toBeUndefined();
  });

  it.each(['', 'garbage', 'tly1..', 'tly1.e30.x'])('rejects %j', (token) => {
    expect(verifyToken(token, key, 0)).toBeUndefined();
  });

  it('tells an expired token from an invalid one, only when the signature holds', () => {
    expect(checkToken(issueToken(claims, key), key, 1_999)).toEqual({ claims });
    expect(checkToken(issueToken(claims, key), key, 2_000)).toEqual({ refused: 'expired' });
    // A forged or foreign token with a past expiry is not "expired": nothing says it was ever valid.
    expect(checkToken(issueToken(claims, Buffer.alloc(32, 8)), key, 2_000)).toEqual({ refused: 'invalid' });
    expect(checkToken(`${issueToken(claims, key)}.extra`, key, 0)).toEqual({ refused: 'invalid' });
    expect(checkToken('garbage', key, 0)).toEqual({ refused: 'invalid' });
  });
});

describe('client secrets', () => {
  it('verifies the right secret and nothing else', async () => {
    const stored = hashSecret('s3cret');
    expect(stored).not.toContain('s3cret');
    expect(await verifySecret('s3cret', stored)).toBe(true);
    expect(await verifySecret('s3cret!', stored)).toBe(false);
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
});

describe('ids', () => {
  it('are prefixed, well-formed and sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 50 }, () => newId('led'));
    for (const id of ids) expect(id).toMatch(ID_PATTERN);
    expect(newId('ext_account')).toMatch(ID_PATTERN);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
