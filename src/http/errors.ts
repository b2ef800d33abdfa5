import type { Middleware } from 'koa';
import { DomainError, type ErrorCode } from '../core/errors.js';
import { expectedFailure } from '../db/errors.js';
import { BearerRefusal } from './bearerAuth.js';
import type { AppContext, AppState } from './context.js';
import type { Logger } from '../observability/log.js';

export type ErrorBody = {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  request_id: string;
  details?: DomainError['details'];
};

/** The body (and media type) of an error answer; REST's by default, GraphQL's on /graphql. */
export type ErrorRenderer = (error: DomainError, ctx: AppContext) => { body: unknown; type?: string };

export const restErrorBody: ErrorRenderer = (error, ctx) => {
  const body: ErrorBody = {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    request_id: ctx.state.requestId,
  };
  if (error.details) body.details = error.details;
  return { body };
};

/**
 * The one place where failures become HTTP responses. Domain errors keep their catalogue code;
 * anything unexpected is a 500 whose body says nothing about internals but names the request id.
 */
export function errorResponses(log: Logger, render: ErrorRenderer = restErrorBody): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toDomainError(thrown);
      if (error.code === 'internal_error') {
        log.error('unhandled error', {
          request_id: ctx.state.requestId,
          error: thrown instanceof Error ? thrown.stack : String(thrown),
        });
      }
      const { body, type } = render(error, ctx);
      ctx.status = error.status;
      if (type) ctx.type = type;
      ctx.body = body;
      // The official SDKs retry 409 and 5xx unless told otherwise; a conflict will not go away.
      ctx.set('x-should-retry', String(error.retryable));
      if (error instanceof BearerRefusal) ctx.set('WWW-Authenticate', error.challenge);
      else if (error.code === 'unauthorized') ctx.set('WWW-Authenticate', 'Bearer');
      if (error.retryable && error.status >= 429) ctx.set('Retry-After', String(error.retryAfterSeconds ?? 1));
    }
  };
}

/** Maps anything thrown to a catalogue error; client faults found by the body parser stay 4xx. */
export function toDomainError(thrown: unknown): DomainError {
  const expected = expectedFailure(thrown);
  if (expected) return expected;
  // The body parser (co-body, raw-body) throws errors carrying an HTTP status.
  const status = (thrown as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return new DomainError('payload_too_large', 'The request body is larger than 1 MiB.');
    if (status === 415) return new DomainError('unsupported_media_type', (thrown as Error).message);
    if (thrown instanceof SyntaxError) return new DomainError('malformed_json', 'The request body is not valid JSON.');
    return new DomainError('invalid_request', (thrown as Error).message);
  }
  return new DomainError('internal_error', 'The server failed to process the request.');
}

/** A known path asked with a method it does not serve. */
export function methodNotAllowed(): DomainError {
  return new DomainError('method_not_allowed', 'This route does not accept that method.');
}
