import type { CursorSigner } from '../core/cursors.js';
import { pager, type Pager } from '../core/pagination.js';
import type { Sql } from '../db/sql.js';
import { pagePath, type PageRef } from '../dashboard/pages.js';
import type { Caller, SandboxRequest } from '../http/context.js';
import type { Logger } from '../observability/log.js';
import { listItemBudget } from './graphql/documentLimits.js';
import type { PostingGroups } from './entries/postingGroups.js';
import type { PostingTargets } from './entries/postingTargets.js';
import { createLoaders, type Loaders } from './loaders.js';

/** What every resolver receives. A type alias, not an interface: graphql-http requires an index signature. */
export type GqlContext = {
  sql: Sql;
  caller: Caller;
  requestId: string;
  log: Logger;
  /** Pages of the named list (`ledgers`, `schema-versions:<key>`...) with cursors bound to it and the caller's workspace. */
  pages: (list: string) => Pager;
  /** Batched lookups by id, scoped to the caller's workspace and this request. */
  load: Loaders;
  /** The process's group commit of entries (entries/postingGroups.ts). */
  postings: PostingGroups;
  /** The process's shared lookups of entries' ledgers and accounts (entries/postingTargets.ts). */
  postingTargets: PostingTargets;
  /** The sandbox's asks of this request: an injected field fault, lagging balances (sandbox/). */
  sandbox?: SandboxRequest;
  /** The absolute URL of a dashboard page, at the base URL this request reached (or PUBLIC_URL). */
  dashboardUrl: (page: PageRef) => string;
};

export type GqlServices = {
  sql: Sql;
  log: Logger;
  cursors: CursorSigner;
  postings: PostingGroups;
  postingTargets: PostingTargets;
  /** Page sizes one request may ask for in all (the `listItems` limit). */
  maxListItems: number;
};

export function createGqlContext(
  services: GqlServices,
  caller: Caller,
  requestId: string,
  publicBase: () => string,
  sandbox?: SandboxRequest,
): GqlContext {
  const charge = listItemBudget(services.maxListItems);
  return {
    sql: services.sql,
    caller,
    requestId,
    log: services.log,
    pages: (list) => pager(services.cursors.forList(list, caller.workspaceId), charge),
    load: createLoaders(services.sql, caller.workspaceId),
    postings: services.postings,
    postingTargets: services.postingTargets,
    sandbox,
    dashboardUrl: (page) => publicBase() + pagePath(page),
  };
}
