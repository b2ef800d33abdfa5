import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from './errors.js';

// Cursors are opaque to clients but carry the keyset position in clear, signed with a key of the
// server's. The signature covers the list and the workspace, so a cursor that was tampered with,
// truncated, or issued for another list or workspace is refused before it reaches a query.

/** Encodes and decodes the cursors of one list of one workspace. */
export type Cursors = {
  encode(parts: string[]): string;
  decode(cursor: string): string[];
};

export type CursorSigner = { forList(list: string, workspaceId: string): Cursors };

// Above the longest cursor Tally issues (a group balance keyed by a 10-level path of 128 four-byte
// characters each: about 7,000), so every issued cursor reads back; longer input is refused unread.
const MAX_CURSOR_LENGTH = 16_384;
const SIGNATURE_LENGTH = 22; // base64url characters: 132 bits of HMAC-SHA256

export function cursorSigner(serverKey: Buffer): CursorSigner {
  // A key of its own, derived once, so a cursor signature can never double as a token signature.
  const key = createHmac('sha256', serverKey).update('tally/cursor-key/v1').digest();
  const sign = (scope: string, payload: string) =>
    createHmac('sha256', key).update(scope).update('\n').update(payload).digest('base64url').slice(0, SIGNATURE_LENGTH);

  return {
    forList(list, workspaceId) {
      const scope = `${list}\n${workspaceId}`;
      return {
        encode(parts) {
          const payload = Buffer.from(JSON.stringify(parts)).toString('base64url');
          return `${payload}.${sign(scope, payload)}`;
        },
        decode(cursor) {
          const dot = cursor.lastIndexOf('.');
          if (cursor.length <= MAX_CURSOR_LENGTH && dot > 0) {
            const payload = cursor.slice(0, dot);
            const actual = Buffer.from(cursor.slice(dot + 1));
            const expected = Buffer.from(sign(scope, payload));
            if (actual.length === expected.length && timingSafeEqual(actual, expected)) {
              return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as string[];
            }
          }
          throw new DomainError(
            'invalid_input_provided',
            'The cursor was not issued for this list: pass a cursor from the pageInfo of the same list.',
          );
        },
      };
    },
  };
}
