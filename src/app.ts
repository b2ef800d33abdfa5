import Router from '@koa/router';
import Koa from 'koa';
import { createBillingApi } from './billing/api.js';
import type { GroupCommitOptions } from './db/groupCommit.js';
import type { Sql } from './db/sql.js';
import { readBodies, requireReadableBody } from './http/bodies.js';
import type { AppState } from './http/context.js';
import type { BearerTokens } from './http/bearerAuth.js';
import { SANDBOX_OPENAPI_PATH, SDL_PATH, serveContract, serveOpenApi } from './http/contracts.js';
import { corsPolicy } from './http/cors.js';
import { dashboardAssets, dashboardPage } from './dashboard/routes.js';
import { docsPage, docsScript } from './http/docs.js';
import { graphiqlAssets, graphiqlPage } from './http/graphiql.js';
import { errorResponses, methodNotAllowed } from './http/errors.js';
import { healthz, readyz } from './http/health.js';
import { DEFAULT_MAX_IN_FLIGHT_PER_WORKSPACE, inFlightLimiter } from './http/inFlight.js';
import type { Logger } from './observability/log.js';
import { oauthToken } from './http/oauthToken.js';
import { requestMetrics, serveMetrics } from './http/requestMetrics.js';
import { watchPool } from './observability/metrics.js';
import { requestLog } from './http/requestLog.js';
import { graphqlAuth } from './ledger/graphql/auth.js';
import { graphqlErrors } from './ledger/graphql/errors.js';
import type { PostingGroupOptions } from './ledger/entries/postingGroupOptions.js';
import { postingGroups } from './ledger/entries/postingGroups.js';
import { postingTargets } from './ledger/entries/postingTargets.js';
import type { PostingTargetCacheOptions } from './ledger/entries/postingTargetCache.js';
import { graphqlEndpoint } from './ledger/graphql/endpoint.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from './ledger/graphql/documentLimits.js';
import { buildLedgerSchema } from './ledger/graphql/executableSchema.js';
import { cursorSigner } from './core/cursors.js';
import { DEFAULT_CORS_ORIGINS } from './config.js';
import { answerFieldFaults } from './sandbox/faultInjection.js';
import { graphqlSandbox } from './sandbox/graphqlSandbox.js';
import { createSandbox } from './sandbox/sandbox.js';

export type AppOptions = {
  sql: Sql;
  signingKey: Buffer;
  tokenTtlSeconds: number;
  log: Logger;
  /** GraphQL documents kept parsed and validated; 0 turns the cache off (benchmarks only). */
  documentCacheSize?: number;
  /** Requests one workspace may have in flight on this process; more get 429 too_many_requests. */
  maxInFlightPerWorkspace?: number;
  /** Browser origins allowed to call the API (CORS); default: local pages on any port. */
  corsOrigins?: readonly string[];
  /** The base URL clients reach Tally at (behind a proxy); default: each request's own. */
  publicUrl?: string;
  /** The pool's size, reported by /metrics. */
  databasePoolMax?: number;
  /** Group commit of ledger entries; default: DEFAULT_POSTING_GROUPS. */
  postingGroups?: PostingGroupOptions;
  /** Posting targets held in memory; false: every entry looks them up. Default: DEFAULT_POSTING_TARGET_CACHE. */
  postingTargetCache?: PostingTargetCacheOptions | false;
  /** Group commit of transaction syncs and invoice creates; default: DEFAULT_BILLING_GROUPS. */
  billingGroups?: GroupCommitOptions;
  /** What one GraphQL request may ask for; default: DEFAULT_DOCUMENT_LIMITS. */
  graphqlLimits?: DocumentLimits;
  /** Serves the sandbox admin API under /sandbox, for this admin token (TALLY_SANDBOX). */
  sandbox?: { adminToken: string };
};

/** Middleware order and routes; no logic lives here. */
export async function createApp(options: AppOptions): Promise<Koa<AppState>> {
  const { sql, signingKey, log } = options;
  const app = new Koa<AppState>();
  const limiter = inFlightLimiter(options.maxInFlightPerWorkspace ?? DEFAULT_MAX_IN_FLIGHT_PER_WORKSPACE);

  watchPool(sql, options.databasePoolMax ?? 10);
  const sandbox = options.sandbox ? await createSandbox({ sql, adminToken: options.sandbox.adminToken }) : undefined;
  const tokens: BearerTokens = { signingKey, revoked: sandbox?.revoked, now: sandbox?.now };
  const router = new Router<AppState>();
  const ledgerSchema = sandbox ? answerFieldFaults(buildLedgerSchema()) : buildLedgerSchema();
  // Token and health routes answer under both base URLs of the billing contract, so a client
  // generated for either reaches them.
  router.post(
    ['/oauth2/token', '/billing/oauth2/token'],
    oauthToken({ sql, signingKey, ttlSeconds: options.tokenTtlSeconds, log, now: sandbox?.now }),
  );
  router.get(['/healthz', '/billing/healthz'], healthz);
  router.get('/metrics', serveMetrics);
  router.get('/docs', docsPage({ sandbox: Boolean(options.sandbox) }));
  router.get('/docs/scalar.js', docsScript);
  router.get('/graphiql', graphiqlPage);
  router.get('/graphiql/:asset', graphiqlAssets(ledgerSchema));
  router.get('/dashboard/assets/:asset', dashboardAssets);
  router.get(['/dashboard', '/dashboard/*page'], dashboardPage(options.publicUrl));
  router.get(['/readyz', '/billing/readyz'], readyz(sql));
  router.get('/schema.graphql', serveContract(SDL_PATH, 'text/plain; charset=utf-8'));
  router.get('/openapi.yaml', serveOpenApi(options.publicUrl));
  if (options.sandbox) router.get('/sandbox/openapi.yaml', serveOpenApi(options.publicUrl, SANDBOX_OPENAPI_PATH));
  const graphql = graphqlEndpoint({
    schema: ledgerSchema,
    sql,
    log,
    cursors: cursorSigner(signingKey),
    postings: postingGroups(sql, options.postingGroups),
    postingTargets: postingTargets(sql, { cache: options.postingTargetCache }),
    documentCacheSize: options.documentCacheSize,
    limits: options.graphqlLimits ?? DEFAULT_DOCUMENT_LIMITS,
    publicUrl: options.publicUrl,
  });
  // A browser opening /graphql gets the IDE; GraphQL clients (JSON) go on to the endpoint.
  router.get('/graphql', (ctx, next) =>
    ctx.query.query === undefined && ctx.accepts('application/json', 'text/html') === 'text/html'
      ? ctx.redirect('/graphiql')
      : next(),
  );
  const beforeGraphql = [graphqlErrors(log), graphqlAuth(tokens, limiter), requireReadableBody];
  if (sandbox) beforeGraphql.push(graphqlSandbox(sandbox, ledgerSchema));
  router.all('/graphql', ...beforeGraphql, graphql);

  const billing = await createBillingApi({
    sql,
    tokens,
    limiter,
    aroundRequest: sandbox?.aroundRestRequest,
    writeGroups: options.billingGroups,
  });

  app.use(requestMetrics());
  app.use(requestLog(log));
  // Before the error responses, so that refusals carry CORS headers too and pages can read them.
  app.use(corsPolicy(options.corsOrigins ?? DEFAULT_CORS_ORIGINS));
  app.use(errorResponses(log));
  app.use(limiter.middleware);
  app.use(readBodies());
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed,
    }),
  );
  if (sandbox) app.use(sandbox.middleware);
  // Whatever the router did not answer is a billing route, or a 404 the billing API explains.
  app.use(billing.middleware);
  return app;
}
