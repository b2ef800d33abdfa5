import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { cursorSigner } from '../../src/core/cursors.js';

const signer = cursorSigner(Buffer.alloc(32, 7));
const cursors = signer.forList('ledgers', 'wks_a');

const REFUSAL = 'The cursor was not issued for this list: pass a cursor from the pageInfo of the same list.';
// Keyset parts of any UTF-16 content, lone surrogates included.
const parts = fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { maxLength: 4 });
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('signed cursors', () => {
  const issued = cursors.encode(['2026-11-24T10:00:00.000Z', 'led_1']);
  const refused = (cursor: string, reader = cursors) => {
    try {
      reader.decode(cursor);
    } catch (error) {
      return error instanceof DomainError && error.code === 'invalid_input_provided' && error.message === REFUSAL;
    }
    return false;
  };

  it('round-trips the keyset position', () => {
    expect(cursors.decode(issued)).toEqual(['2026-11-24T10:00:00.000Z', 'led_1']);
  });

  it('round-trips the longest position Tally issues: a 10-level path of 128 four-byte characters per key', () => {
    const groupBalances = signer.forList('group-balances', 'wks_a');
    const position = [Array.from({ length: 10 }, () => '𝄞'.repeat(128)).join('/'), 'CUSTOM:points-and-miles'];
    const cursor = groupBalances.encode(position);
    expect(cursor.length).toBeGreaterThan(6_000);
    expect(groupBalances.decode(cursor)).toEqual(position);
  });

  it.each([
    ['truncated', issued.slice(0, -3)],
    ['without signature', issued.split('.')[0]],
    ['empty', ''],
    ['only a dot', '.'],
    ['huge', 'a'.repeat(100_000)],
    [
      'forged payload',
      `${Buffer.from(JSON.stringify(["x' or 1=1", 'y'])).toString('base64url')}.${issued.split('.')[1]}`,
    ],
    ['odd unicode', 'ü\u0000\ud800.abc'],
  ])('refuses a %s cursor', (_name, cursor) => {
    expect(refused(cursor)).toBe(true);
  });

  it('refuses a cursor of another list or another workspace', () => {
    expect(refused(issued, signer.forList('schemas', 'wks_a'))).toBe(true);
    expect(refused(issued, signer.forList('ledgers', 'wks_b'))).toBe(true);
  });

  it('refuses a cursor signed with another server key', () => {
    const foreign = cursorSigner(Buffer.alloc(32, 8)).forList('ledgers', 'wks_a').encode(['a']);
    expect(refused(foreign)).toBe(true);
  });

  it('refuses as a 400 invalid_input_provided, which the client can correct', () => {
    const refusal = (() => {
      try {
        cursors.decode('x.y');
      } catch (error) {
        return error;
      }
    })() as DomainError;
    expect(refusal).toBeInstanceOf(DomainError);
    expect([refusal.code, refusal.status, refusal.retryable, refusal.message]).toEqual([
      'invalid_input_provided',
      400,
      false,
      REFUSAL,
    ]);
  });

  // The position travels in clear (base64url of its JSON); only the signature is secret.
  it('writes the position as base64url JSON, a dot, and 22 characters of signature', () => {
    const [payload, signature, ...rest] = issued.split('.');
    expect(rest).toEqual([]);
    expect(Buffer.from(payload, 'base64url').toString('utf8')).toBe('["2026-11-24T10:00:00.000Z","led_1"]');
    expect(signature).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('round-trips any keyset position, whatever its characters', () => {
    fc.assert(
      fc.property(parts, (position) => {
        expect(cursors.decode(cursors.encode(position))).toEqual(position);
      }),
    );
  });

  it('issues the same cursor for the same position, so a page boundary is stable', () => {
    fc.assert(
      fc.property(parts, (position) => {
        expect(signer.forList('ledgers', 'wks_a').encode(position)).toBe(cursors.encode(position));
      }),
    );
  });

  it('refuses any cursor with one character changed, anywhere', () => {
    fc.assert(
      fc.property(parts, fc.nat(), fc.constantFrom(...BASE64URL, '.'), (position, at, replacement) => {
        const cursor = cursors.encode(position);
        const index = at % cursor.length;
        fc.pre(cursor[index] !== replacement);
        expect(refused(`${cursor.slice(0, index)}${replacement}${cursor.slice(index + 1)}`)).toBe(true);
      }),
    );
  });

  it('refuses any cursor cut short or extended', () => {
    fc.assert(
      fc.property(parts, fc.nat(), fc.string({ minLength: 1, maxLength: 4 }), (position, at, extra) => {
        const cursor = cursors.encode(position);
        expect(refused(cursor.slice(0, at % cursor.length))).toBe(true);
        expect(refused(`${cursor}${extra}`)).toBe(true);
        expect(refused(`${extra}${cursor}`)).toBe(true);
      }),
    );
  });

  it('refuses any cursor issued for another list, workspace or server key', () => {
    const name = fc.stringMatching(/^[a-z_:0-9]{1,12}$/);
    fc.assert(
      fc.property(
        parts,
        name,
        name,
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (position, list, workspace, key) => {
          fc.pre(list !== 'ledgers' && workspace !== 'wks_a' && Buffer.from(key).compare(Buffer.alloc(32, 7)) !== 0);
          const cursor = cursors.encode(position);
          expect(refused(cursor, signer.forList(list, 'wks_a'))).toBe(true);
          expect(refused(cursor, signer.forList('ledgers', workspace))).toBe(true);
          expect(refused(cursor, cursorSigner(Buffer.from(key)).forList('ledgers', 'wks_a'))).toBe(true);
        },
      ),
    );
  });
});
