import { describe, expect, it } from 'vitest';
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
