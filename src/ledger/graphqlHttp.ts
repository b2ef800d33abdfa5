import type { IncomingMessage } from 'node:http';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http/lib/use/koa';
import type { Middleware } from 'koa';
import { DomainError } from '../core/errors.js';
import { callerOf } from '../http/bearerAuth.js';
import type { InFlightLimiter } from '../http/inFlight.js';
import type { AppState } from '../http/context.js';
import type { Logger } from '../http/log.js';
import { expectedFailure } from '../db/errors.js';
import type { Sql } from '../db/sql.js';
import { createGqlContext, type GqlContext } from './context.js';
import type { CursorSigner } from '../core/cursors.js';
import { createDocumentCache } from './documentCache.js';

type RawWithState = IncomingMessage & { tallyState?: AppState };

/** POST/GET /graphql over graphql-http, with cached documents and errors that never leak internals. */
export function graphqlEndpoint(options: {
  schema: GraphQLSchema;
  sql: Sql;
  log: Logger;
  cursors: CursorSigner;
  documentCacheSize?: number;
}): Middleware<AppState> {
  const cache = createDocumentCache(options.documentCacheSize);
  const handler = createHandler<GqlContext>({
    schema: options.schema,
    parse: cache.parse,
    validate: cache.validate,
    // graphql-http hands us only Node's request, so the Koa state rides on it (set below).
    context: (req) => {
      const state = (req.raw as RawWithState).tallyState!;
      return createGqlContext(options, state.caller!, state.requestId);
    },
    onOperation: (req, _args, result) => {
      if (!('errors' in result) || !result.errors) return;
      const { requestId } = (req.raw as RawWithState).tallyState!;
      return { ...result, errors: result.errors.map((error) => publicError(error, requestId, options.log)) };
    },
  });
  return async (ctx, next) => {
    (ctx.req as RawWithState).tallyState = ctx.state;
    await handler(ctx, next);
  };
}

/** Expected failures keep their message and gain their catalogue code; anything else is masked. */
function publicError(error: GraphQLError, requestId: string, log: Logger): GraphQLError {
  const original = error.originalError;
  if (!original || original instanceof GraphQLError) return error;
  const expected = expectedFailure(original);
  if (expected) {
    return new GraphQLError(expected.message, {
      nodes: error.nodes, path: error.path,
      extensions: { code: expected.code, retryable: expected.retryable },
    });
  }
  log.error('resolver failed', { request_id: requestId, path: error.path?.join('.'), error: original.stack });
  return new GraphQLError(`Internal error (request id ${requestId}).`, {
    nodes: error.nodes, path: error.path,
    extensions: { code: 'internal_error', retryable: true, request_id: requestId },
  });
}

/** Bearer auth for /graphql, answering failures in the GraphQL response shape. */
export function graphqlAuth(signingKey: Buffer, limiter: InFlightLimiter): Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.caller = callerOf(ctx.get('authorization'), signingKey);
    if (ctx.state.caller) {
      try {
        limiter.admit(ctx);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        ctx.status = error.status;
        ctx.set('Retry-After', '1');
        ctx.set('x-should-retry', 'true');
        ctx.body = { errors: [{ message: error.message, extensions: { code: error.code, retryable: true, request_id: ctx.state.requestId } }] };
        return;
      }
    }
    if (!ctx.state.caller) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer');
      ctx.body = {
        errors: [{
          message: 'A valid access token is required: send Authorization: Bearer <token>.',
          extensions: { code: 'unauthorized', request_id: ctx.state.requestId },
        }],
      };
      return;
    }
    await next();
  };
}
