// The dashboard's pages and their paths, in one table: the server answers `dashboardUrl` with
// them, and the browser's router matches them. Runs in both, so it imports nothing.

export const DASHBOARD_ROOT = '/dashboard';

export type PageRef =
  | { page: 'ledgers' }
  | { page: 'ledger'; ledgerId: string }
  | { page: 'account'; accountId: string }
  | { page: 'entry'; entryId: string }
  | { page: 'group'; ledgerId: string; key: string; value: string }
  | { page: 'links' }
  | { page: 'link'; linkId: string }
  | { page: 'invoices' }
  | { page: 'invoice'; invoiceId: string }
  | { page: 'transactions' }
  | { page: 'paymentFlows' }
  | { page: 'paymentFlow'; flowId: string };

export type PageName = PageRef['page'];

/** Each page's path after DASHBOARD_ROOT: literal segments, and `:name` for a parameter. */
const PATTERNS: { [P in PageName]: string } = {
  ledgers: '',
  ledger: '/ledgers/:ledgerId',
  account: '/accounts/:accountId',
  entry: '/entries/:entryId',
  group: '/ledgers/:ledgerId/groups/:key/:value',
  links: '/links',
  link: '/links/:linkId',
  invoices: '/invoices',
  invoice: '/invoices/:invoiceId',
  transactions: '/transactions',
  paymentFlows: '/payment-flows',
  paymentFlow: '/payment-flows/:flowId',
};

const segments = (pattern: string) => pattern.split('/').slice(1);
const ROUTES = Object.entries(PATTERNS).map(([page, pattern]) => ({ page, expected: segments(pattern) }));

/** The path of a page, each parameter percent-encoded as one segment. */
export function pagePath(ref: PageRef): string {
  const params = ref as Record<string, string>;
  const path = segments(PATTERNS[ref.page])
    .map((segment) => (segment.startsWith(':') ? encodeURIComponent(params[segment.slice(1)]) : segment))
    .join('/');
  return path ? `${DASHBOARD_ROOT}/${path}` : DASHBOARD_ROOT;
}

/** The page a path names, or undefined when none does (or a segment is not valid percent-encoding). */
export function matchPage(path: string): PageRef | undefined {
  const rest = path.replace(/\/+$/, '');
  if (rest !== DASHBOARD_ROOT && !rest.startsWith(`${DASHBOARD_ROOT}/`)) return undefined;
  const parts = segments(rest.slice(DASHBOARD_ROOT.length));
  for (const { page, expected } of ROUTES) {
    if (expected.length !== parts.length) continue;
    const ref: Record<string, string> = { page };
    const matches = expected.every((segment, i) => {
      if (!segment.startsWith(':')) return segment === parts[i];
      const value = decodeSegment(parts[i]);
      if (!value) return false;
      ref[segment.slice(1)] = value;
      return true;
    });
    if (matches) return ref as PageRef;
  }
  return undefined;
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment) || undefined;
  } catch {
    return undefined;
  }
}
