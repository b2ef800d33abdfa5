import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { fingerprint } from '../../src/core/fingerprint.js';
import { decodeCursor, encodeCursor, pageRequest, toPage } from '../../src/core/pagination.js';

describe('pageRequest', () => {
  it('defaults to 20 forward', () => {
    expect(pageRequest({})).toEqual({ backward: false, size: 20, cursor: undefined });
  });

  it('pages backward with last/before', () => {
    expect(pageRequest({ last: 5, before: encodeCursor(['a']) })).toEqual({ backward: true, size: 5, cursor: ['a'] });
  });

  it.each([{ first: -1 }, { first: 201 }, { first: 1, last: 1 }, { after: 'not-a-cursor' }])('rejects %j', (args) => {
    expect(() => pageRequest(args)).toThrow(DomainError);
  });
});

describe('toPage', () => {
  const rows = ['a', 'b', 'c'];
  it('uses the extra row only to report a next page', () => {
    const page = toPage({ backward: false, size: 2 }, rows, (row) => [row]);
    expect(page.nodes).toEqual(['a', 'b']);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(decodeCursor(page.pageInfo.endCursor!)).toEqual(['b']);
  });

  it('restores display order when paging backward', () => {
    const page = toPage({ backward: true, size: 2, cursor: ['z'] }, rows, (row) => [row]);
    expect(page.nodes).toEqual(['b', 'a']);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
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
