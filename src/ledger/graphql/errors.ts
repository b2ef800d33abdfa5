import type { Middleware } from 'koa';
import { DomainError } from '../../core/errors.js';
import type { AppContext, AppState } from '../../http/context.js';
import { errorResponses } from '../../http/errors.js';
import type { Logger } from '../../observability/log.js';

// Failures before or around execution (authentication, admission, unreadable bodies, methods,
// media types) still answer in the GraphQL response shape, so a GraphQL client can read them:
// {"errors":[{"message","extensions":{"code","retryable","request_id"}}]}.

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** The media type the client accepts: the GraphQL one when it says so, JSON otherwise. */
export function responseMediaType(ctx: AppContext): string {
  return mediaTypeFor(ctx.get('accept'));
}

/** The answer's media type for an `Accept` header (the server and the mock alike). */
export function mediaTypeFor(accept: string | undefined): string {
  return (accept ?? '').toLowerCase().includes(GRAPHQL_RESPONSE)
    ? `${GRAPHQL_RESPONSE}; charset=utf-8`
    : 'application/json; charset=utf-8';
}

export function graphqlErrorBody(error: DomainError, requestId: string) {
  return {
    errors: [
      {
        message: error.message,
        extensions: { code: error.code, retryable: error.retryable, request_id: requestId },
      },
    ],
  };
}

/** The typed error for a transport status graphql-http answers without a GraphQL body. */
export function transportError(status: number, ctx: AppContext): DomainError | undefined {
  return transportErrorFor(status, ctx.method);
}

/** transportError by the request's method alone (the server and the mock alike). */
export function transportErrorFor(status: number, method: string): DomainError | undefined {
  switch (status) {
    case 405:
      return new DomainError(
        'method_not_allowed',
        method === 'GET' ? 'Mutations are sent with POST, not GET.' : '/graphql accepts GET (queries only) and POST.',
      );
    case 406:
      return new DomainError('not_acceptable', 'Accept application/graphql-response+json or application/json.');
    case 415:
      return new DomainError(
        'unsupported_media_type',
        'Send the request as application/json (POST) or as URL parameters (GET).',
      );
    default:
      return undefined;
  }
}

/** Renders anything thrown on the /graphql route in the GraphQL shape, with the catalogue's status. */
export function graphqlErrors(log: Logger): Middleware<AppState> {
  return errorResponses(log, (error, ctx) => ({
    type: responseMediaType(ctx),
    body: graphqlErrorBody(error, ctx.state.requestId),
  }));
}
