import { billing } from '../api.js';
import type { Transaction } from '../billingTypes.js';
import { h } from '../dom.js';
import { formatInstant } from '../format.js';
import { shownInSteps } from '../paging.js';
import { link, linkWithQuery, searchParam } from '../router.js';
import { code, heading } from '../view.js';
import { billingAmount } from './billingAmounts.js';

const FILTERS = { all: 'All', unreconciled: 'Unreconciled', reconciled: 'Reconciled' } as const;

export async function transactionsPage(): Promise<HTMLElement> {
  const status = searchParam('status');
  const filter = status === 'reconciled' || status === 'unreconciled' ? status : 'all';
  const query = filter === 'all' ? '' : `?reconciliation_status=${filter}`;
  const transactions = await billing<Transaction[]>('GET', `/transactions${query}`);
  return h(
    'div',
    null,
    heading('Billing', 'Transactions'),
    h(
      'nav',
      { class: 'chooser', 'aria-label': 'Reconciliation status' },
      Object.entries(FILTERS).map(([value, label]) =>
        linkWithQuery(
          { page: 'transactions' },
          new URLSearchParams(value === 'all' ? {} : { status: value }),
          value === filter,
          label,
        ),
      ),
    ),
    shownInSteps({
      caption: `${FILTERS[filter]} transactions`,
      head: ['Posted', 'External id', 'Account', 'Amount', 'Unallocated', 'Allocated to'],
      testId: 'transactions',
      rows: transactions,
      row: (tx) => [
        formatInstant(tx.posted),
        code(tx.external_id),
        tx.account.external_id,
        billingAmount(tx.amount, tx.currency),
        billingAmount(tx.unallocated_amount, tx.currency, `unallocated:${tx.external_id}`),
        tx.allocations.map((allocation) =>
          h(
            'div',
            null,
            link({ page: 'invoice', invoiceId: allocation.invoice_id }, allocation.invoice_id),
            ` ${allocation.user.external_id} `,
            billingAmount(allocation.amount, tx.currency),
          ),
        ),
      ],
    }),
  );
}
