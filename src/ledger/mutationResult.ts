import { expectedFailure } from '../db/errors.js';
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
    const expected = expectedFailure(error);
    if (expected) {
      const { code, message, retryable } = expected;
      // The server's own trouble (the database away, a deadline): worth an operator's look.
      if (expected.status >= 500) ctx.log.warn('mutation failed', { request_id: ctx.requestId, mutation, code });
      return {
        __typename: expected.status < 500 ? 'BadRequestError' : 'InternalError',
        code,
        message,
        retryable,
      } as const;
    }
    ctx.log.error('mutation failed', {
      request_id: ctx.requestId,
      mutation,
      error: error instanceof Error ? error.stack : String(error),
    });
    return {
      __typename: 'InternalError',
      code: 'internal_error',
      message: 'The server failed to process the request.',
      retryable: true,
    };
  }
}
