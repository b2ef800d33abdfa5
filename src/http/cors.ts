import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';

// Browsers on the allowed origins may call every route with a bearer token. Patterns are exact
// origins, `*` for any port (`http://localhost:*`), `*.` for any subdomain, or `*` for any origin.

/** Headers a page may read from answers: the request id and the retry hints as well as the usual ones. */
export const EXPOSED_HEADERS = ['x-request-id', 'x-should-retry', 'retry-after', 'www-authenticate', 'allow'];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function patternRegex(pattern: string): RegExp {
  const anyPort = pattern.endsWith(':*');
  const base = anyPort ? pattern.slice(0, -2) : pattern;
  const [scheme, host] = base.split('://');
  const hostPattern = host.startsWith('*.') ? `([A-Za-z0-9-]+\\.)+${escape(host.slice(2))}` : escape(host);
  return new RegExp(`^${escape(scheme)}://${hostPattern}${anyPort ? '(:\\d{1,5})?' : ''}$`, 'i');
}

/** Whether a browser origin matches one of the configured patterns. */
export function originMatcher(patterns: readonly string[]): (origin: string) => boolean {
  if (patterns.includes('*')) return () => true;
  const regexes = patterns.map(patternRegex);
  return (origin) => regexes.some((regex) => regex.test(origin));
}

export function corsPolicy(patterns: readonly string[]): Middleware<AppState> {
  const allowed = originMatcher(patterns);
  return cors({
    // An origin that is not allowed gets no CORS headers at all, so the browser blocks the read.
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return origin && allowed(origin) ? origin : '';
    },
    allowMethods: ['GET', 'POST', 'PATCH', 'OPTIONS'],
    allowHeaders: ['authorization', 'content-type', 'x-request-id', 'accept'],
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // Tokens travel in the Authorization header, never in cookies.
    credentials: false,
    keepHeadersOnError: true,
  }) as Middleware<AppState>;
}
