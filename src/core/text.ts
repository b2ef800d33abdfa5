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
export function findUnstorableText(value: unknown, base: string): Violation | undefined {
  const found = problemIn(value, 0);
  if (!found) return undefined;
  // The path comes back innermost first; the pointer is only built for a value that fails.
  const pointer =
    base +
    found.path
      .reverse()
      .map((key) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`)
      .join('');
  return { pointer: pointer || '/', message: found.message };
}

function problemIn(value: unknown, depth: number): { path: string[]; message: string } | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { path: [], message: problem } : undefined;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = problemIn(value[index], depth + 1);
      if (found) return (found.path.push(String(index)), found);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem) return { path: [key], message: `property name ${keyProblem}` };
    const found = problemIn((value as Record<string, unknown>)[key], depth + 1);
    if (found) return (found.path.push(key), found);
  }
  return undefined;
}
