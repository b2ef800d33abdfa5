import { ID_PATTERN } from '../core/ids.js';

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// Values that differ on every run by design: compared by presence, not by content.
const VOLATILE_KEYS: Record<string, string> = {
  access_token: '<token>',
  clientSecret: '<secret>',
  client_secret: '<secret>',
  client_id: '<client id>',
};
// Per-request values that examples may leave out.
const DROPPED_KEYS = new Set(['request_id']);

/**
 * Makes a response comparable with a spec example: service ids become <id>, timestamps become
 * <timestamp>, tokens <token>, and error messages (free text, not contract) <message>; request
 * ids are dropped. Everything else (codes, amounts, names, pointers, order) stays exact.
 */
export function normalize(value: unknown, key?: string, parent?: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    if (key && key in VOLATILE_KEYS) return VOLATILE_KEYS[key];
    if (ID_PATTERN.test(value)) return '<id>';
    if (ISO_TIMESTAMP.test(value)) return '<timestamp>';
    if (isErrorText(key, parent)) return '<message>';
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(object)
        .filter(([k]) => !DROPPED_KEYS.has(k))
        .map(([k, v]) => [k, normalize(v, k, object)]),
    );
  }
  return value;
}

function isErrorText(key: string | undefined, parent: Record<string, unknown> | undefined): boolean {
  if (!parent) return false;
  if (key === 'error_description') return true;
  return key === 'message' && ['code', 'pointer', 'locations', 'error'].some((marker) => marker in parent);
}

/** GraphQL `errors` are compared by their `extensions.code`: text and locations are not contract. */
export function normalizeGraphqlResponse(body: {
  data?: unknown;
  errors?: { extensions?: { code?: unknown } }[];
}): unknown {
  const out: Record<string, unknown> = {};
  if ('data' in body && body.data !== undefined) out.data = normalize(body.data);
  if (body.errors)
    out.errors = body.errors.map((error) => ({ code: error.extensions?.code ?? '<missing extensions.code>' }));
  return out;
}

/** Every service id in a response, in document order: a replay must answer the same ones. */
export function idsIn(value: unknown): string[] {
  if (typeof value === 'string') return ID_PATTERN.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(idsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(idsIn);
  return [];
}
