import { DomainError } from '../core/errors.js';

/**
 * Fields of the contract that this version of Tally does not serve yet: the one visible list,
 * shrinking as features land. They answer with the typed code `not_implemented`, never a silent
 * null; mutations answer it as an InternalError member, as the official SDKs expect.
 */
export const PENDING_FIELDS: Readonly<Record<string, readonly string[]>> = {};

function unavailable(type: string, field: string): DomainError {
  return new DomainError('not_implemented', `${type}.${field} is not available in this version of Tally yet.`);
}

export function pendingResolvers(): Record<string, Record<string, () => unknown>> {
  const resolvers: Record<string, Record<string, () => unknown>> = {};
  for (const [type, fields] of Object.entries(PENDING_FIELDS)) {
    resolvers[type] = Object.fromEntries(fields.map((field) => [field, type === 'Mutation'
      ? () => {
        const error = unavailable(type, field);
        return { __typename: 'InternalError', code: error.code, message: error.message, retryable: false };
      }
      : () => {
        throw unavailable(type, field);
      }]));
  }
  return resolvers;
}
