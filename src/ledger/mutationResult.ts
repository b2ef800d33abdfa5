import { DomainError } from '../core/errors.js';
import type { GqlContext } from './context.js';

export type BadRequestError = { __typename: 'BadRequestError'; code: string; message: string; retryable: boolean };
export type InternalError = { __typename: 'InternalError'; code: string; message: string; retryable: boolean };

/**
 * Mutations answer expected failures as union members (the official SDKs branch on __typename)
 * rather than as GraphQL errors. Unexpected failures become InternalError without internals.
 */
export async function asMutationResult<T>(
  ctx: GqlContext,
  mutation: string,
  run: () => Promise<T>,
): Promise<T | BadRequestError | InternalError> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError && error.status < 500) {
      return { __typename: 'BadRequestError', code: error.code, message: error.message, retryable: error.retryable };
    }
    if (error instanceof DomainError) {
      return { __typename: 'InternalError', code: error.code, message: error.message, retryable: error.retryable };
    }
    ctx.log.error('mutation failed', {
      request_id: ctx.requestId, mutation, error: error instanceof Error ? error.stack : String(error),
    });
    return { __typename: 'InternalError', code: 'internal_error', message: 'The server failed to process the request.', retryable: true };
  }
}
