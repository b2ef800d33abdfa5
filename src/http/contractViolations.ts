import type { ErrorObject } from 'ajv';
import type { Violation } from '../core/errors.js';

// Turns the Ajv errors of a request that failed its contract's validation into the violations an
// `invalid_request` answer lists: one per problem, each a JSON pointer into the request.

const COMBINATORS = new Set(['oneOf', 'anyOf']);

export const isCombinator = (error: ErrorObject) => COMBINATORS.has(error.keyword);

/** The errors that describe what the caller meant to send, and their violations. */
export function contractViolations(all: ErrorObject[]): { errors: ErrorObject[]; violations: Violation[] } {
  const errors = closestAlternatives(all);
  return { errors, violations: errors.map(toViolation) };
}

/**
 * For a oneOf/anyOf that failed, Ajv reports the errors of every alternative; a current-form
 * invoice would be told it lacks `invoiceId`. Keep only the alternative the request came closest
 * to (fewest errors), so the violations describe what the caller meant to send.
 */
function closestAlternatives(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  const settled = new Set<ErrorObject>();
  for (const summary of errors.filter((error) => COMBINATORS.has(error.keyword))) {
    const prefix = `${summary.schemaPath}/`;
    const branches = new Map<string, number>();
    for (const error of kept) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0];
      branches.set(branch, (branches.get(branch) ?? 0) + 1);
    }
    if (branches.size < 2) continue;
    const ranked = [...branches.entries()].sort((a, b) => a[1] - b[1]);
    const [closest] = ranked[0];
    kept = kept.filter(
      (error) => !error.schemaPath.startsWith(prefix) || error.schemaPath.startsWith(`${prefix}${closest}/`),
    );
    // A body form clearly meant (the contract reports violations against that form only): the
    // summary adds nothing. Nested choices such as a user {id} | {external_id} keep theirs.
    if (ranked[0][1] < ranked[1][1] && /^(\/requestBody)?$/.test(summary.instancePath)) settled.add(summary);
  }
  return kept.filter((error) => !settled.has(error));
}

/** An Ajv error as a JSON pointer into the request (`/body/...`, `/query/...`, `/path/...`). */
function toViolation(error: ErrorObject): Violation {
  let pointer = error.instancePath.replace(/^\/requestBody/, '/body');
  if (error.keyword === 'required') pointer += `/${escapePointer(String(error.params.missingProperty))}`;
  if (error.keyword === 'additionalProperties') pointer += `/${escapePointer(String(error.params.additionalProperty))}`;
  if (error.keyword === 'parse') pointer = '/body';
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') message = 'is not a known property';
  if (
    error.keyword === 'enum' &&
    Array.isArray(error.params.allowedValues) &&
    error.params.allowedValues.length <= 10
  ) {
    message = `must be one of: ${error.params.allowedValues.join(', ')}`;
  }
  return { pointer: pointer || '/', message };
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
