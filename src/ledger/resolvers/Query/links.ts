import type { QueryResolvers } from '../../../../generated/ledger.js';
import { MAX_PAGE_SIZE } from '../../../core/pagination.js';
import { findLink, pageLinks } from '../../../db/links.js';

export const link: NonNullable<QueryResolvers['link']> = async (_parent, args, { sql, caller }) =>
  (await findLink(sql, caller.workspaceId, { id: args.link.id })) ?? null;

// The field takes no page arguments, so it answers the newest links up to the largest page.
export const links: NonNullable<QueryResolvers['links']> = async (_parent, _args, { sql, caller, pages }) => {
  const linkPages = pages('links');
  const request = linkPages.request({ first: MAX_PAGE_SIZE });
  const rows = await pageLinks(sql, caller.workspaceId, request);
  return linkPages.page(request, rows, (row) => [row.created.toISOString(), row.id]);
};
