import type { CustomLinkResolvers, LinkResolvers, ProviderLinkResolvers } from '../../../generated/ledger.js';
import { MAX_PAGE_SIZE } from '../../core/pagination.js';
import type { LinkRow } from '../../db/links.js';
import { pageExternalAccounts } from '../../db/links.js';
import type { GqlContext } from '../context.js';

// The field takes no page arguments, so it answers the newest accounts up to the largest page.
async function externalAccounts(row: LinkRow, _args: unknown, { sql, pages }: GqlContext) {
  const accountPages = pages(`link-accounts:${row.id}`);
  const request = accountPages.request({ first: MAX_PAGE_SIZE });
  const rows = await pageExternalAccounts(sql, row.workspaceId, row.id, request);
  return accountPages.page(request, rows, (account) => [account.created.toISOString(), account.id]);
}

const shared = {
  created: (row: LinkRow) => row.created.toISOString(),
  dashboardUrl: (row: LinkRow, _args: unknown, ctx: GqlContext) => ctx.dashboardUrl({ page: 'link', linkId: row.id }),
  externalAccounts,
};

export const Link: LinkResolvers = {
  __resolveType: (row) => (row.kind === 'provider' ? 'ProviderLink' : 'CustomLink'),
};
export const CustomLink: CustomLinkResolvers = shared;
export const ProviderLink: ProviderLinkResolvers = { ...shared, providerEnv: (row) => row.providerEnv ?? 'sandbox' };
