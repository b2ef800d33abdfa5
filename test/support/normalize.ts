import { ID_PATTERN } from '../../src/core/ids.js';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Makes a response comparable with a spec example: service ids become <id>, timestamps become
 * <timestamp>, and error messages (free text, not contract) become <message>. Everything else,
 * codes, amounts, names, order, stays exact.
 */
export function normalize(value: unknown, key?: string, parent?: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    if (ID_PATTERN.test(value)) return '<id>';
    if (ISO_TIMESTAMP.test(value)) return '<timestamp>';
    if ((key === 'message' || key === 'error_description') && parent && ('code' in parent || 'locations' in parent || 'error' in parent)) {
      return '<message>';
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, normalize(v, k, object)]));
  }
  return value;
}

/** GraphQL `errors` are compared by count only: their text and locations are not contract. */
export function normalizeGraphqlResponse(body: { data?: unknown; errors?: unknown[] }): unknown {
  const out: Record<string, unknown> = {};
  if ('data' in body && body.data !== undefined) out.data = normalize(body.data);
  if (body.errors) out.errors = body.errors.map(() => ({ message: '<message>' }));
  return out;
}
