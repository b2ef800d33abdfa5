import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkToken, issueToken, verifyToken } from '../../src/core/tokens.js';

const key = Buffer.alloc(32, 7);
const claims = { workspaceId: 'ws_1', clientId: 'client_1', expiresAt: 2_000 };

const anyClaims = fc.record({
  workspaceId: fc.string({ unit: 'binary', maxLength: 30 }),
  clientId: fc.string({ unit: 'binary', maxLength: 30 }),
  expiresAt: fc.integer({ min: 1, max: 2 ** 40 }),
});
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

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
    expect(checkToken(`${prefix}.${forged}.${signature}`, key, 0)).toEqual({ refused: 'invalid' });
  });

  it.each(['', 'garbage', 'tly1..', 'tly1.e30.x'])('rejects %j', (token) => {
    expect(verifyToken(token, key, 0)).toBeUndefined();
    expect(checkToken(token, key, 0)).toEqual({ refused: 'invalid' });
  });

  it('tells an expired token from an invalid one, only when the signature holds', () => {
    expect(checkToken(issueToken(claims, key), key, 1_999)).toEqual({ claims });
    expect(checkToken(issueToken(claims, key), key, 2_000)).toEqual({ refused: 'expired' });
    // A forged or foreign token with a past expiry is not "expired": nothing says it was ever valid.
    expect(checkToken(issueToken(claims, Buffer.alloc(32, 8)), key, 2_000)).toEqual({ refused: 'invalid' });
    expect(checkToken(`${issueToken(claims, key)}.extra`, key, 0)).toEqual({ refused: 'invalid' });
    expect(checkToken('garbage', key, 0)).toEqual({ refused: 'invalid' });
  });

  // Every process sharing the key must accept every other's tokens, across releases too.
  it('is tly1, the base64url JSON [workspace, client, expiry] and its HMAC-SHA256, byte for byte', () => {
    expect(issueToken(claims, key)).toBe(
      'tly1.WyJ3c18xIiwiY2xpZW50XzEiLDIwMDBd.WM-FIS8ev4gjd5YsPuFQEeOHT6fEMMOXfcEoFJPErsA',
    );
    expect(Buffer.from('WyJ3c18xIiwiY2xpZW50XzEiLDIwMDBd', 'base64url').toString()).toBe('["ws_1","client_1",2000]');
  });

  // Signed here as the format above pins it, so only the claims inside are wrong.
  const signed = (payloadJson: string) => {
    const payload = Buffer.from(payloadJson).toString('base64url');
    return `tly1.${payload}.${createHmac('sha256', key).update(`tly1.${payload}`).digest('base64url')}`;
  };

  it('accepts a token signed by that rule, as any other process of the deployment would sign it', () => {
    expect(checkToken(signed('["ws_9","client_9",5000]'), key, 0)).toEqual({
      claims: { workspaceId: 'ws_9', clientId: 'client_9', expiresAt: 5000 },
    });
  });

  it.each([
    ['a number for the client', '["ws_1",1,2000]'],
    ['a string expiry', '["ws_1","client_1","2000"]'],
    ['null for the workspace', '[null,"client_1",2000]'],
    ['too few claims', '["ws_1","client_1"]'],
    ['an object', '{"workspaceId":"ws_1","clientId":"client_1","expiresAt":2000}'],
    ['no JSON at all', 'ws_1 client_1 2000'],
  ])('refuses a well-signed token carrying %s as invalid', (_name, payloadJson) => {
    expect(checkToken(signed(payloadJson), key, 0)).toEqual({ refused: 'invalid' });
  });

  it('gives back any claims exactly, until the second they expire', () => {
    fc.assert(
      fc.property(anyClaims, fc.integer({ min: 0, max: 2 ** 40 }), (given, now) => {
        const token = issueToken(given, key);
        expect(checkToken(token, key, now)).toEqual(now < given.expiresAt ? { claims: given } : { refused: 'expired' });
        expect(verifyToken(token, key, now)).toEqual(now < given.expiresAt ? given : undefined);
      }),
    );
  });

  it('refuses any token with one character changed, as invalid even when it is also expired', () => {
    fc.assert(
      fc.property(
        anyClaims,
        fc.nat(),
        fc.constantFrom(...BASE64URL, '.'),
        fc.boolean(),
        (given, at, replacement, late) => {
          const token = issueToken(given, key);
          const index = at % token.length;
          fc.pre(token[index] !== replacement);
          const now = late ? given.expiresAt : 0;
          expect(checkToken(`${token.slice(0, index)}${replacement}${token.slice(index + 1)}`, key, now)).toEqual({
            refused: 'invalid',
          });
        },
      ),
    );
  });

  it('refuses any token signed with another key', () => {
    fc.assert(
      fc.property(anyClaims, fc.uint8Array({ minLength: 32, maxLength: 32 }), (given, other) => {
        fc.pre(Buffer.from(other).compare(key) !== 0);
        expect(checkToken(issueToken(given, Buffer.from(other)), key, 0)).toEqual({ refused: 'invalid' });
      }),
    );
  });

  describe('remembered once proven', () => {
    it('only for the key that signed it, and only until it expires', () => {
      const token = issueToken(claims, key);
      expect(checkToken(token, key, 1_000)).toEqual({ claims });
      expect(checkToken(token, Buffer.alloc(32, 9), 1_000)).toEqual({ refused: 'invalid' });
      expect(checkToken(token, key, 1_999)).toEqual({ claims });
      expect(checkToken(token, key, 2_000)).toEqual({ refused: 'expired' });
      expect(checkToken(token, key, 2_001)).toEqual({ refused: 'expired' });
    });

    // A copy of the key is another Buffer, so it starts with nothing remembered: the reference.
    it('answers every check as a check from scratch would', () => {
      const tokens = [claims, { ...claims, expiresAt: 3_000 }].map((given) => issueToken(given, key));
      const variants = [
        ...tokens,
        `${tokens[0]}x`,
        tokens[1].replace('.', '.A'),
        issueToken(claims, Buffer.alloc(32, 8)),
      ];
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.constantFrom(...variants), fc.integer({ min: 0, max: 4_000 })), { maxLength: 40 }),
          (checks) => {
            const remembering = Buffer.from(key);
            for (const [token, now] of checks) {
              expect(checkToken(token, remembering, now)).toEqual(checkToken(token, Buffer.from(key), now));
            }
          },
        ),
      );
    });

    it('keeps answering right past the number of tokens it remembers', () => {
      const first = issueToken(claims, key);
      for (let n = 0; n < 10_050; n++) checkToken(issueToken({ ...claims, clientId: `c${n}` }, key), key, 0);
      expect(checkToken(first, key, 0)).toEqual({ claims });
      expect(checkToken(`${first}x`, key, 0)).toEqual({ refused: 'invalid' });
    });
  });
});
