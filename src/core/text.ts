// String.prototype.isWellFormed is ES2024: Node 20 has it, the project's `lib` (ES2023) does not name it.
/// <reference lib="es2024.string" />
import type { Violation } from './errors.js';

// PostgreSQL text cannot hold NUL, and an unpaired UTF-16 surrogate has no UTF-8 form at all.
// Both are caught at the edge, with a pointer to the value, so no such string reaches a query.

const MAX_DEPTH = 64;

/** Why `value` cannot be stored as text, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!value.isWellFormed()) {
    return 'must be valid Unicode (it contains an unpaired UTF-16 surrogate)';
  }
  return undefined;
}

/**
 * The first string (object key or value) in a JSON-like value that cannot be stored, as a
 * violation whose pointer starts at `base` (RFC 6901, e.g. `/body/name`).
 */
export function findUnstorableText(value: unknown, base: string, depth = 0): Violation | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { pointer: base || '/', message: problem } : undefined;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  for (const [key, item] of entries) {
    const pointer = `${base}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const keyProblem = textProblem(key);
    if (keyProblem) return { pointer, message: `property name ${keyProblem}` };
    const found = findUnstorableText(item, pointer, depth + 1);
    if (found) return found;
  }
  return undefined;
}
