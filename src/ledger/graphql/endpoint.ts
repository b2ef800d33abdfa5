import type { IncomingMessage } from 'node:http';
import { getOperationAST, GraphQLError, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Middleware } from 'koa';
import { expectedFailure } from '../../db/errors.js';
import type { AppState } from '../../http/context.js';
import { publicBase } from '../../http/publicBase.js';
import type { Logger } from '../../observability/log.js';
import { countGraphqlOperation, graphqlOperationName } from '../../observability/metrics.js';
import { createGqlContext, type GqlContext, type GqlServices } from '../context.js';
import { createDocumentCache } from './documentCache.js';
import { graphqlErrorBody, responseMediaType, transportError } from './errors.js';
import { replacedError } from './replacedError.js';
import { parseAndCheckParams, withCode } from './requests.js';
import type { DocumentLimits } from './documentLimits.js';

/**
 * POST/GET /graphql over graphql-http's core handler, with our own Koa glue so that one place
 * shapes every answer: cached and limited documents, an `extensions.code` on every error, and
 * transport failures (405, 406, 415) in the GraphQL response shape rather than an empty body.
 */
export type GraphqlEndpointOptions = Omit<GqlServices, 'maxListItems'> & {
  schema: GraphQLSchema;
  /** The base URL clients reach Tally at (PUBLIC_URL); absent: each request's own. */
  publicUrl?: string;
  documentCacheSize?: number;
  limits: DocumentLimits;
};

export function graphqlEndpoint(options: GraphqlEndpointOptions): Middleware<AppState> {
  const cache = createDocumentCache({ maxDocuments: options.documentCacheSize, limits: options.limits });
  const services: GqlServices = { ...options, maxListItems: options.limits.listItems };
  const handle = createHandler<IncomingMessage, AppState, GqlContext>({
    schema: options.schema,
    parse: cache.parse,
    validate: cache.validate,
    parseRequestParams: parseAndCheckParams,
    context: (req) =>
      createGqlContext(
        services,
        req.context.caller!,
        req.context.requestId,
        () => publicBase(options.publicUrl, isTls(req.raw) ? 'https' : 'http', req.raw.headers.host),
        req.context.sandbox,
      ),
    onOperation: (req, args, result) => {
      // Metrics: the operation by its (bounded) name and its type.
      const operation = getOperationAST(args.document, args.operationName);
      const name = graphqlOperationName(args.operationName ?? operation?.name?.value);
      countGraphqlOperation(name, operation?.operation ?? 'unknown');
      if (!result.errors) return;
      return {
        ...result,
        errors: result.errors.map((error) => publicError(error, req.context.requestId, options.log)),
      };
    },
    formatError: withCode,
  });

  return async (ctx) => {
    const [body, init] = await handle({
      method: ctx.method,
      url: ctx.url,
      headers: ctx.headers,
      // @koa/bodyparser has read JSON bodies already; anything else is refused by content type.
      body: () => (ctx.request.body as Record<string, unknown> | undefined) ?? null,
      raw: ctx.req,
      context: ctx.state,
    });
    for (const [name, value] of Object.entries(init.headers ?? {})) ctx.set(name, String(value));
    const replaced = transportError(init.status, ctx);
    ctx.status = init.status;
    if (replaced) {
      ctx.type = responseMediaType(ctx);
      ctx.body = graphqlErrorBody(replaced, ctx.state.requestId);
    } else {
      ctx.body = body;
    }
  };
}

/** As Koa's `ctx.protocol` without a trusted proxy: https only when this socket is TLS. */
const isTls = (req: IncomingMessage) => 'encrypted' in req.socket && req.socket.encrypted === true;

/** Expected failures keep their message and gain their catalogue code; anything else is masked. */
function publicError(error: GraphQLError, requestId: string, log: Logger): GraphQLError {
  const original = error.originalError;
  if (!original || original instanceof GraphQLError) return error;
  const expected = expectedFailure(original);
  if (expected) {
    const { violations: _violations, ...details } = expected.details ?? {};
    return replacedError(error, expected.message, {
      extensions: { ...details, code: expected.code, retryable: expected.retryable },
    });
  }
  log.error('resolver failed', { request_id: requestId, path: error.path?.join('.'), error: original.stack });
  return replacedError(error, `Internal error (request id ${requestId}).`, {
    extensions: { code: 'internal_error', retryable: true, request_id: requestId },
  });
}
