import { ERROR_CATALOGUE, SANDBOX_ERROR_CATALOGUE } from '../../src/core/errors.js';

// What every answer to a bad request must be: typed, from the catalogue, never a server fault.

const CODES = new Set(Object.keys(ERROR_CATALOGUE));
// The sandbox admin API answers its own codes too; the other APIs never do.
const SANDBOX_CODES = new Set([...CODES, ...Object.keys(SANDBOX_ERROR_CATALOGUE)]);
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'unsupported_grant_type',
  'server_error',
  'temporarily_unavailable',
]);

export type Answer = { status: number; contentType: string; text: string };
export type Expectation = { operation: string; path: string };

/** The problems with one answer; an empty list means it is a proper typed refusal (or a harmless read). */
export function problemsOf(answer: Answer, expectation: Expectation): string[] {
  if (/^\/dashboard(\/|$|\?)/.test(expectation.path)) return dashboardProblems(answer);
  const problems: string[] = [];
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`not JSON (${answer.status}, ${answer.contentType}): ${answer.text.slice(0, 120)}`];
  }
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (/^\/graphql(\?|$)/.test(expectation.path)) return [...problems, ...graphqlProblems(body)];
  const sandbox = /^\/sandbox(\/|$)/.test(expectation.path);
  // Every sandbox case is a request the admin API must refuse.
  if (sandbox && answer.status < 400) problems.push(`accepted (${answer.status})`);
  if (answer.status < 400) return problems;
  if (!(sandbox ? SANDBOX_CODES : CODES).has(body?.code))
    problems.push(`code ${JSON.stringify(body?.code)} is not in the catalogue`);
  if (typeof body?.message !== 'string' || typeof body?.retryable !== 'boolean')
    problems.push('error body lacks message or retryable');
  if (body?.code === 'internal_error') problems.push('internal_error');
  // The token route answers under both base URLs.
  if (
    /^(\/billing)?\/oauth2\/token/.test(expectation.path) &&
    (!OAUTH_ERRORS.has(body?.error) || typeof body?.error_description !== 'string')
  ) {
    problems.push('token error without the RFC 6749 fields');
  }
  return problems;
}

/** The dashboard answers its page (200, or 404 for a path that names none), an asset, or a typed refusal. */
function dashboardProblems(answer: Answer): string[] {
  if (answer.status >= 500) return [`status ${answer.status}`];
  if (answer.status === 200 || answer.status === 404) {
    const page = answer.contentType.startsWith('text/html');
    const asset = /^(application\/javascript|text\/css)/.test(answer.contentType);
    const refusal = answer.contentType.startsWith('application/json');
    return page || asset || refusal ? [] : [`unexpected ${answer.status} answer of type ${answer.contentType}`];
  }
  return problemsOf(answer, { operation: 'dashboard', path: '/' });
}

function graphqlProblems(body: any): string[] {
  const problems: string[] = [];
  if (!body || typeof body !== 'object' || (!('data' in body) && !Array.isArray(body.errors)))
    return ['not a GraphQL response'];
  for (const error of body.errors ?? []) {
    const code = error?.extensions?.code;
    if (!CODES.has(code))
      problems.push(`GraphQL error without a catalogue code: ${String(error?.message).slice(0, 100)}`);
    if (code === 'internal_error') problems.push(`internal_error: ${error?.message}`);
    if (code === 'not_implemented') problems.push('not_implemented: every GraphQL field is served');
  }
  walk(body.data, (node) => {
    if (node.__typename === 'BadRequestError' || node.__typename === 'InternalError') {
      if (!CODES.has(node.code)) problems.push(`${node.__typename} without a catalogue code`);
      if (node.__typename === 'InternalError') problems.push(`InternalError ${node.code}`);
    }
  });
  return problems;
}

function walk(value: unknown, visit: (node: Record<string, any>) => void): void {
  if (Array.isArray(value)) value.forEach((item) => walk(item, visit));
  else if (value && typeof value === 'object') {
    visit(value as Record<string, any>);
    Object.values(value).forEach((item) => walk(item, visit));
  }
}
