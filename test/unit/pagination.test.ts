import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cursorSigner } from '../../src/core/cursors.js';
import {
  pageInMemory,
  pager,
  pageRequest,
  toPage,
  WHOLE_PAGE,
  type Page,
  type PageArgs,
} from '../../src/core/pagination.js';
import { refusalOf } from '../support/domainErrors.js';

const signer = cursorSigner(Buffer.alloc(32, 7));
const cursors = signer.forList('ledgers', 'wks_a');

describe('pageRequest', () => {
  it('defaults to 20 forward', () => {
    expect(pageRequest({}, cursors)).toEqual({ backward: false, size: 20, cursor: undefined });
  });

  it('pages backward with last/before', () => {
    expect(pageRequest({ last: 5, before: cursors.encode(['a']) }, cursors)).toEqual({
      backward: true,
      size: 5,
      cursor: ['a'],
    });
  });

  const SIZE = 'Page size must be from 0 to 200.';
  it.each([
    [{ first: -1 }, SIZE],
    [{ first: 201 }, SIZE],
    [{ first: 1, last: 1 }, 'Pass either first or last, not both.'],
    [
      { after: 'not-a-cursor' },
      'The cursor was not issued for this list: pass a cursor from the pageInfo of the same list.',
    ],
  ] as [PageArgs, string][])('rejects %j', (args, message) => {
    expect(refusalOf(() => pageRequest(args, cursors))).toEqual({ code: 'invalid_input_provided', message });
  });

  it.each([
    [{ first: 0 }, { backward: false, size: 0, cursor: undefined }],
    [{ first: 200 }, { backward: false, size: 200, cursor: undefined }],
    [{ last: 0 }, { backward: true, size: 0, cursor: undefined }],
    [{ before: cursors.encode(['b']) }, { backward: true, size: 20, cursor: ['b'] }],
    [
      { first: 3, after: cursors.encode(['c']) },
      { backward: false, size: 3, cursor: ['c'] },
    ],
    [
      { first: null, last: null, after: null, before: null },
      { backward: false, size: 20, cursor: undefined },
    ],
  ] as [PageArgs, unknown][])('reads %j as %j', (args, expected) => {
    expect(pageRequest(args, cursors)).toEqual(expected);
  });

  it('accepts every whole size from 0 to the maximum and refuses every other number', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double()), fc.boolean(), (size, backward) => {
        const args = backward ? { last: size } : { first: size };
        if (Number.isInteger(size) && size >= 0 && size <= 200) {
          expect(pageRequest(args, cursors)).toEqual({ backward, size, cursor: undefined });
        } else {
          expect(refusalOf(() => pageRequest(args, cursors))).toEqual({
            code: 'invalid_input_provided',
            message: SIZE,
          });
        }
      }),
    );
  });

  it("applies a list's own limits, such as a balance series' 1,000", () => {
    const limits = { defaultSize: 1000, maxSize: 1000 };
    expect(pageRequest({}, cursors, limits)).toEqual({ backward: false, size: 1000, cursor: undefined });
    expect(refusalOf(() => pageRequest({ first: 1001 }, cursors, limits))).toEqual({
      code: 'invalid_input_provided',
      message: 'Page size must be from 0 to 1000.',
    });
  });
});

describe('toPage', () => {
  const rows = ['a', 'b', 'c'];
  it('uses the extra row only to report a next page', () => {
    const page = toPage({ backward: false, size: 2 }, rows, (row) => [row], cursors);
    expect(page.nodes).toEqual(['a', 'b']);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: cursors.encode(['a']),
      endCursor: cursors.encode(['b']),
    });
    expect(cursors.decode(page.pageInfo.endCursor!)).toEqual(['b']);
  });

  it('restores display order when paging backward', () => {
    const page = toPage({ backward: true, size: 2, cursor: ['z'] }, rows, (row) => [row], cursors);
    expect(page.nodes).toEqual(['b', 'a']);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: true,
      startCursor: cursors.encode(['b']),
      endCursor: cursors.encode(['a']),
    });
  });

  it('reports an empty page with null cursors', () => {
    expect(toPage({ backward: false, size: 5 }, [], (row: string) => [row], cursors)).toEqual({
      nodes: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('answers a list with no page arguments as one whole page', () => {
    expect(WHOLE_PAGE).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
  });
});

describe('pager', () => {
  it('tells the charge each page size before any row is read', () => {
    const charged: number[] = [];
    const pages = pager(cursors, (size) => charged.push(size));
    pages.request({ first: 7 });
    pages.request({});
    pages.request({}, { defaultSize: 1000, maxSize: 1000 });
    expect(charged).toEqual([7, 20, 1000]);
  });

  it('charges nothing for a refused request', () => {
    const charged: number[] = [];
    expect(refusalOf(() => pager(cursors, (size) => charged.push(size)).request({ first: 500 }))).toEqual({
      code: 'invalid_input_provided',
      message: 'Page size must be from 0 to 200.',
    });
    expect(charged).toEqual([]);
  });
});

describe('walking a list page by page (pageInMemory)', () => {
  // Keys in any UTF-16 content, so the code-unit order of Array.prototype.sort is the model.
  const keys = fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 6 }), { maxLength: 30 });
  const pages = pager(cursors);

  it('visits every row once, in code-unit order, following endCursor forward', () => {
    fc.assert(
      fc.property(keys, fc.integer({ min: 1, max: 7 }), (rows, size) => {
        const seen: string[] = [];
        let after: string | null = null;
        for (let turn = 0; turn <= rows.length; turn += 1) {
          const page: Page<string> = pageInMemory(pages, pages.request({ first: size, after }), rows, (row) => row);
          expect(page.nodes.length).toBe(Math.min(size, rows.length - seen.length));
          expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
          seen.push(...page.nodes);
          expect(page.pageInfo.hasNextPage).toBe(seen.length < rows.length);
          if (!page.pageInfo.hasNextPage) break;
          after = page.pageInfo.endCursor;
        }
        expect(seen).toEqual([...rows].sort());
      }),
    );
  });

  it('visits every row once following startCursor backward, each page still in display order', () => {
    fc.assert(
      fc.property(keys, fc.integer({ min: 1, max: 7 }), (rows, size) => {
        const seen: string[] = [];
        let before: string | null = null;
        for (let turn = 0; turn <= rows.length; turn += 1) {
          const page: Page<string> = pageInMemory(pages, pages.request({ last: size, before }), rows, (row) => row);
          expect(page.nodes).toEqual([...page.nodes].sort());
          expect(page.pageInfo.hasNextPage).toBe(before !== null);
          seen.unshift(...page.nodes);
          expect(page.pageInfo.hasPreviousPage).toBe(seen.length < rows.length);
          if (!page.pageInfo.hasPreviousPage) break;
          before = page.pageInfo.startCursor;
        }
        expect(seen).toEqual([...rows].sort());
      }),
    );
  });
});
