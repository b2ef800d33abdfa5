import type { Cursors } from './cursors.js';
import { DomainError } from './errors.js';

// Relay-style pages (nodes + pageInfo, no edges) over keyset cursors: the cursor names the last
// row seen, so pages stay stable while rows are added, and cost the same at any depth. Cursors are
// signed per list and workspace (cursors.ts).

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 200;

export type PageArgs = { first?: number | null; last?: number | null; after?: string | null; before?: string | null };

/** Direction, size and boundary of one page, checked against the API's limits. */
export type PageRequest = { backward: boolean; size: number; cursor?: string[] };

/** A list's page sizes: lists of rows use the defaults; a balance series allows longer pages. */
export type PageLimits = { defaultSize: number; maxSize: number };
const ROW_LIST_LIMITS: PageLimits = { defaultSize: DEFAULT_PAGE_SIZE, maxSize: MAX_PAGE_SIZE };

export function pageRequest(args: PageArgs, cursors: Cursors, limits: PageLimits = ROW_LIST_LIMITS): PageRequest {
  const backward = args.last != null || (args.before != null && args.first == null);
  if (args.first != null && args.last != null) {
    throw new DomainError('invalid_input_provided', 'Pass either first or last, not both.');
  }
  const size = (backward ? args.last : args.first) ?? limits.defaultSize;
  if (!Number.isInteger(size) || size < 0 || size > limits.maxSize) {
    throw new DomainError('invalid_input_provided', `Page size must be from 0 to ${limits.maxSize}.`);
  }
  const raw = backward ? args.before : args.after;
  return { backward, size, cursor: raw == null ? undefined : cursors.decode(raw) };
}

export type Page<T> = {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
};

/**
 * Builds a page from rows fetched in display order's direction with one extra row (size + 1):
 * the extra row only tells whether more exist in that direction.
 */
export function toPage<T>(request: PageRequest, rows: T[], cursorOf: (row: T) => string[], cursors: Cursors): Page<T> {
  const hasMore = rows.length > request.size;
  const slice = rows.slice(0, request.size);
  const nodes = request.backward ? slice.reverse() : slice;
  const first = nodes[0];
  const last = nodes[nodes.length - 1];
  return {
    nodes,
    pageInfo: {
      hasNextPage: request.backward ? request.cursor !== undefined : hasMore,
      hasPreviousPage: request.backward ? hasMore : request.cursor !== undefined,
      startCursor: first === undefined ? null : cursors.encode(cursorOf(first)),
      endCursor: last === undefined ? null : cursors.encode(cursorOf(last)),
    },
  };
}

/** Page requests and pages of one list, with its cursors. */
export type Pager = {
  request(args: PageArgs, limits?: PageLimits): PageRequest;
  page<T>(request: PageRequest, rows: T[], cursorOf: (row: T) => string[]): Page<T>;
};

/** `charge` is told each page size before any row is read, so a request's total can be bounded. */
export function pager(cursors: Cursors, charge: (pageSize: number) => void = () => {}): Pager {
  return {
    request: (args, limits) => {
      const request = pageRequest(args, cursors, limits);
      charge(request.size);
      return request;
    },
    page: (request, rows, cursorOf) => toPage(request, rows, cursorOf, cursors),
  };
}

/** The page info of a list answered whole (fields that take no page arguments). */
export const WHOLE_PAGE = { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } as const;

/**
 * One page of a short list held in memory, ordered by a key that is also its cursor. Sorted by
 * code unit here, so the page boundaries agree with the comparisons whatever produced the rows.
 */
export function pageInMemory<T>(
  pager: Pager,
  request: PageRequest,
  rows: readonly T[],
  keyOf: (row: T) => string,
): Page<T> {
  const [after] = request.cursor ?? [];
  const sorted = [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const inDirection = request.backward
    ? sorted.filter((row) => after === undefined || keyOf(row) < after).reverse()
    : sorted.filter((row) => after === undefined || keyOf(row) > after);
  return pager.page(request, inDirection.slice(0, request.size + 1), (row) => [keyOf(row)]);
}
