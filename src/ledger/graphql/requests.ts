import { GraphQLError } from 'graphql';
import { parseRequestParams, type Request } from 'graphql-http';
import { findUnstorableText } from '../../core/text.js';
import { replacedError } from './replacedError.js';

// How a GraphQL request's parameters are read and its errors given a catalogue code, shared by
// the server's endpoint and the ledger mock so that both answer a bad request with the same codes.

/** graphql-http's own request parsing, plus the text check of every variable. */
export async function parseAndCheckParams<Raw, Context>(req: Request<Raw, Context>) {
  const params = await parseRequestParams(req);
  if (Array.isArray(params)) return params;
  const { variables } = params as { variables?: Record<string, unknown> | null };
  const problem = findUnstorableText(variables ?? undefined, '');
  if (problem) {
    throw new GraphQLError(`Variable at ${problem.pointer} ${problem.message}.`, {
      extensions: { code: 'invalid_input_provided' },
    });
  }
  return params;
}

/**
 * The code of an error that has none yet. Request errors (not GraphQLErrors: a batched array,
 * `variables` not an object, no query) and syntax errors are parse failures; the rest come from
 * validation and variable coercion; an execution error without a code is a server fault.
 */
export function withCode(error: Readonly<GraphQLError | Error>): GraphQLError {
  if (!(error instanceof GraphQLError)) {
    return new GraphQLError(`The request is not a GraphQL request: ${error.message}.`, {
      extensions: { code: 'graphql_parse_failed' },
    });
  }
  if (error.extensions?.code) return error;
  const code = error.message.startsWith('Syntax Error')
    ? 'graphql_parse_failed'
    : error.path
      ? 'internal_error'
      : 'graphql_validation_failed';
  return replacedError(error, error.message, {
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}
