import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { cursorSigner } from '../../src/core/cursors.js';

const signer = cursorSigner(Buffer.alloc(32, 7));
const cursors = signer.forList('ledgers', 'wks_a');

describe('signed cursors', () => {
  const issued = cursors.encode(['2026-11-24T10:00:00.000Z', 'led_1']);
  const refused = (cursor: string, reader = cursors) => {
    try {
      reader.decode(cursor);
    } catch (error) {
      return error instanceof DomainError && error.code === 'invalid_input_provided';
    }
    return false;
  };

  it('round-trips the keyset position', () => {
    expect(cursors.decode(issued)).toEqual(['2026-11-24T10:00:00.000Z', 'led_1']);
  });

  it.each([
    ['truncated', issued.slice(0, -3)],
    ['without signature', issued.split('.')[0]],
    ['empty', ''],
    ['only a dot', '.'],
    ['huge', 'a'.repeat(100_000)],
    ['forged payload', `${Buffer.from(JSON.stringify(["x' or 1=1", 'y'])).toString('base64url')}.${issued.split('.')[1]}`],
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
});
