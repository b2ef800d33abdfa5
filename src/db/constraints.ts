import postgres from 'postgres';
import { DomainError } from '../core/errors.js';

/**
 * The one place where database constraint violations become domain errors, by constraint name:
 * the constraint is the guard of last resort (races included), this table gives it a typed answer.
 */
const CONSTRAINT_ERRORS: Record<string, () => DomainError> = {
  products_code_key: () => new DomainError('product_code_taken', 'A product with this code already exists.'),
  ledgers_workspace_id_schema_key_fkey: () => new DomainError('schema_not_found', 'No schema with this key.'),
};

/** Runs a query; a violation of a known constraint is rethrown as its domain error. */
export async function mappingConstraints<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (error) {
    const name = error instanceof postgres.PostgresError ? error.constraint_name : undefined;
    const mapped = name ? CONSTRAINT_ERRORS[name] : undefined;
    throw mapped ? mapped() : error;
  }
}
