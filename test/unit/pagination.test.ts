import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
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
