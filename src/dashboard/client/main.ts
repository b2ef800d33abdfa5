// The dashboard's shell: the navigation, the page the address names, and the sign-in form when
// there is no session. Every page reads through the public APIs (api.ts).

import type { PageRef } from '../pages.js';
import { ApiError, SignedOut } from './api.js';
import { h } from './dom.js';
import { accountPage } from './pages/account.js';
import { entryPage } from './pages/entry.js';
import { groupPage } from './pages/group.js';
import { invoicePage, invoicesPage } from './pages/invoices.js';
import { ledgerPage } from './pages/ledger.js';
import { ledgersPage } from './pages/ledgers.js';
import { linkPage, linksPage } from './pages/links.js';
import { paymentFlowPage, paymentFlowsPage } from './pages/paymentFlows.js';
import { signInPage } from './pages/signIn.js';
import { transactionsPage } from './pages/transactions.js';
import { currentPage, link, startRouter } from './router.js';
import { currentSession, signOut } from './session.js';
import { NotFound } from './view.js';

function render(ref: PageRef): Promise<HTMLElement> {
  switch (ref.page) {
    case 'ledgers':
      return ledgersPage();
    case 'ledger':
      return ledgerPage(ref.ledgerId);
    case 'account':
      return accountPage(ref.accountId);
    case 'entry':
      return entryPage(ref.entryId);
    case 'group':
      return groupPage(ref.ledgerId, ref.key, ref.value);
    case 'links':
      return linksPage();
    case 'link':
      return linkPage(ref.linkId);
    case 'invoices':
      return invoicesPage();
    case 'invoice':
      return invoicePage(ref.invoiceId);
    case 'transactions':
      return transactionsPage();
    case 'paymentFlows':
      return paymentFlowsPage();
    case 'paymentFlow':
      return paymentFlowPage(ref.flowId);
  }
}

const root = document.getElementById('app')!;
let shown = 0;

function navigation(clientId: string): HTMLElement {
  return h(
    'nav',
    { class: 'top', 'aria-label': 'Dashboard' },
    h('strong', { class: 'brand' }, 'Tally'),
    link({ page: 'ledgers' }, 'Ledgers'),
    link({ page: 'links' }, 'Links'),
    link({ page: 'invoices' }, 'Invoices'),
    link({ page: 'transactions' }, 'Transactions'),
    link({ page: 'paymentFlows' }, 'Payment flows'),
    h('span', { class: 'who' }, clientId),
    h('button', { type: 'button', onclick: () => (signOut(), void show()) }, 'Sign out'),
  );
}

function problem(title: string, detail: string): HTMLElement {
  return h('div', { class: 'problem-page', 'data-problem': title }, h('h1', null, title), h('p', null, detail));
}

/** Renders the current address; a newer navigation wins over a slower page still loading. */
async function show(): Promise<void> {
  const session = currentSession();
  if (!session) {
    root.replaceChildren(signInPage(() => void show()));
    return;
  }
  const ticket = ++shown;
  const main = h('main', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  root.replaceChildren(navigation(session.clientId), main);
  const ref = currentPage();
  let content: HTMLElement;
  try {
    content = ref ? await render(ref) : problem('Not found', 'No dashboard page has this address.');
  } catch (error) {
    if (error instanceof SignedOut) return show();
    if (error instanceof NotFound || (error instanceof ApiError && error.status === 404))
      content = problem(
        'Not found',
        'Nothing here that this client can see: it does not exist, or belongs to another workspace.',
      );
    else content = problem('Something went wrong', error instanceof Error ? error.message : String(error));
  }
  if (ticket !== shown) return;
  main.replaceChildren(content);
  main.removeAttribute('aria-busy');
  document.title = `${main.querySelector('h1')?.textContent ?? 'Tally'} · Tally dashboard`;
}

startRouter(() => void show());
void show();
