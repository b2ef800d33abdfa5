import { HOSTILE_STRINGS, type Random } from './random.js';
import { encodePathSegment, type HttpCase } from './restCases.js';

// Hostile addresses under /dashboard: page paths with odd, overlong, malformed or traversing
// segments, asset names that are not assets, and methods the pages do not take. Every answer must
// be the page, a 404 or a typed 405, never a server fault; none may change anything.

const PAGE_TEMPLATES = [
  '/dashboard/ledgers/{}',
  '/dashboard/accounts/{}',
  '/dashboard/entries/{}',
  '/dashboard/ledgers/{}/groups/{}/{}',
  '/dashboard/links/{}',
  '/dashboard/invoices/{}',
  '/dashboard/payment-flows/{}',
  '/dashboard/{}',
  '/dashboard/assets/{}',
];
const RAW_SEGMENTS = ['%E0%A4%A', '%', '%%', '%2e%2e', '..', '.', '%00', '%C0%AF', '%uD800', ';', '%2F%2F'];
const ASSETS = [
  'dashboard.js',
  'main.ts',
  'routes.ts',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '.env',
  'uplot.css',
];

export function dashboardCaseGenerator() {
  const segment = (random: Random) =>
    random.int(0, 2) === 0
      ? random.pick(RAW_SEGMENTS)
      : encodePathSegment(random.pick([...HOSTILE_STRINGS.filter(Boolean), ...ASSETS, 'acct_1', 'x'.repeat(3000)]));
  return {
    next(random: Random): HttpCase {
      const path =
        random.pick(PAGE_TEMPLATES).replaceAll('{}', () => segment(random)) +
        (random.int(0, 4) === 0 ? '?currency=%ZZ&granularity=' : '');
      const method = random.pick(['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE']);
      return { kind: 'dashboard', operation: 'dashboard', method, path, headers: {}, writes: false };
    },
  };
}
