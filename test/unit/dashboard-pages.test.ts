import { describe, expect, it } from 'vitest';
import { matchPage, pagePath, type PageRef } from '../../src/dashboard/pages.js';

// Page paths are what `dashboardUrl` answers and what the browser routes: every page must come
// back from its own path, whatever its parameters hold.

const ODD = ['a/b', '50%', 'ü ñ 漢字', '?x=1#y', '..', 'white space', '🙂', 'dashboard'];

const pages: PageRef[] = [
  { page: 'ledgers' },
  { page: 'links' },
  { page: 'invoices' },
  { page: 'transactions' },
  { page: 'paymentFlows' },
  ...ODD.flatMap((odd): PageRef[] => [
    { page: 'ledger', ledgerId: odd },
    { page: 'account', accountId: odd },
    { page: 'entry', entryId: odd },
    { page: 'group', ledgerId: 'led_1', key: odd, value: odd },
    { page: 'link', linkId: odd },
    { page: 'invoice', invoiceId: odd },
    { page: 'paymentFlow', flowId: odd },
  ]),
];

describe('dashboard page paths', () => {
  it.each(pages.map((ref) => [pagePath(ref), ref] as const))('%s names its page', (path, ref) => {
    expect(path.startsWith('/dashboard')).toBe(true);
    expect(matchPage(path)).toEqual(ref);
  });

  it('takes a trailing slash, and names no page for other paths or broken percent-encoding', () => {
    expect(matchPage('/dashboard/')).toEqual({ page: 'ledgers' });
    expect(matchPage('/dashboard/ledgers/led_1/')).toEqual({ page: 'ledger', ledgerId: 'led_1' });
    for (const path of [
      '/dashboards',
      '/dashboard/ledgers',
      '/dashboard/accounts/%E0%A4%A',
      '/dashboard/accounts/',
      '/graphql',
      '/dashboard/x/y/z/w/v/u',
    ])
      expect(matchPage(path)).toBeUndefined();
  });
});
