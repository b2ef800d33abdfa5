import type { CursorSigner } from '../core/cursors.js';
import { DomainError } from '../core/errors.js';

// Search pages of the REST API: `page_info: {after, limit}` in, `page_info.next_cursor` out.
// Cursors hold the last row's (created, id), signed for this search and this workspace.

export type PageRequest = { after?: [string, string]; limit: number };

export function searchPageRequest(
  cursors: CursorSigner,
  search: string,
  workspaceId: string,
  pageInfo?: { after?: string; limit?: number },
): PageRequest {
  const limit = pageInfo?.limit ?? 20;
  if (pageInfo?.after === undefined) return { limit };
  try {
    const [created, id] = cursors.forList(search, workspaceId).decode(pageInfo.after);
    if (typeof created !== 'string' || typeof id !== 'string') throw new Error('cursor shape');
    return { after: [created, id], limit };
  } catch {
    throw new DomainError('invalid_request', 'The request does not match the contract.', {
      violations: [{ pointer: '/body/page_info/after', message: 'is not a cursor issued by this search' }],
    });
  }
}

/** The page's rows (one more was fetched to learn whether another page exists) and its page_info. */
export function pageOf<T extends { created: Date; id: string }>(
  cursors: CursorSigner,
  search: string,
  workspaceId: string,
  rows: T[],
  limit: number,
) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const more = rows.length > limit && last !== undefined;
  return {
    rows: page,
    pageInfo: more
      ? { next_cursor: cursors.forList(search, workspaceId).encode([last.created.toISOString(), last.id]) }
      : {},
  };
}
