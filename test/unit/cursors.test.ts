import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { fingerprint } from '../../src/core/fingerprint.js';
import { cursorSigner } from '../../src/core/cursors.js';
import { pageRequest, toPage } from '../../src/core/pagination.js';

const signer = cursorSigner(Buffer.alloc(32, 7));
const cursors = signer.forList('ledgers', 'wks_a');

describe('pageRequest', () => {
  it('defaults to 20 forward', () => {
    expect(pageRequest({}, cursors)).toEqual({ backward: false, size: 20, cursor: undefined });
  });

  it('pages backward with last/before', () => {
    expect(pageRequest({ last: 5, before: cursors.encode(['a']) }, cursors)).toEqual({ backward: true, size: 5, cursor: ['a'] });
  });

  it.each([{ first: -1 }, { first: 201 }, { first: 1, last: 1 }, { after: 'not-a-cursor' }])('rejects %j', (args) => {
    expect(() => pageRequest(args, cursors)).toThrow(DomainError);
  });
});

describe('toPage', () => {
  const rows = ['a', 'b', 'c'];
  it('uses the extra row only to report a next page', () => {
    const page = toPage({ backward: false, size: 2 }, rows, (row) => [row], cursors);
    expect(page.nodes).toEqual(['a', 'b']);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(cursors.decode(page.pageInfo.endCursor!)).toEqual(['b']);
  });

  it('restores display order when paging backward', () => {
    const page = toPage({ backward: true, size: 2, cursor: ['z'] }, rows, (row) => [row], cursors);
    expect(page.nodes).toEqual(['b', 'a']);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });
});

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

describe('fingerprint', () => {
  it('ignores key order and undefined members', () => {
    expect(fingerprint({ a: 1, b: { c: 2, d: undefined } })).toBe(fingerprint({ b: { c: 2 }, a: 1 }));
  });

  it('tells different payloads apart', () => {
    expect(fingerprint({ name: 'Main' })).not.toBe(fingerprint({ name: 'Main ledger' }));
  });
});
