import type { Middleware } from 'koa';
import { DomainError, ERROR_CATALOGUE, type ErrorCode } from '../core/errors.js';
import type { AppState } from './context.js';
import type { Logger } from './log.js';

export type ErrorBody = {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  request_id: string;
  details?: DomainError['details'];
};

/** Failures raised by Koa's body parser, by their `type`, mapped into the catalogue. */
const PARSER_FAILURES: Record<string, ErrorCode> = {
  'entity.parse.failed': 'malformed_json',
  'entity.too.large': 'payload_too_large',
  'encoding.unsupported': 'unsupported_media_type',
  'charset.unsupported': 'unsupported_media_type',
};

/**
 * The one place where failures become HTTP responses. Domain errors keep their catalogue code;
 * anything unexpected is a 500 whose body says nothing about internals but names the request id.
 */
export function errorResponses(log: Logger): Middleware<AppState> {
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
      const body: ErrorBody = {
        code: error.code,
        message: error.message,
        retryable: error.retryable,
        request_id: ctx.state.requestId,
      };
      if (error.details) body.details = error.details;
      ctx.status = error.status;
      ctx.body = body;
      // The official SDKs retry 409 and 5xx unless told otherwise; a conflict will not go away.
      ctx.set('x-should-retry', String(error.retryable));
      if (error.code === 'unauthorized') ctx.set('WWW-Authenticate', 'Bearer');
    }
  };
}

export function toDomainError(thrown: unknown): DomainError {
  if (thrown instanceof DomainError) return thrown;
  const type = (thrown as { type?: unknown })?.type;
  if (typeof type === 'string' && type in PARSER_FAILURES) {
    const code = PARSER_FAILURES[type];
    return new DomainError(code, code === 'malformed_json'
      ? 'The request body is not valid JSON.'
      : (thrown as Error).message);
  }
  return new DomainError('internal_error', 'The server failed to process the request.');
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}
