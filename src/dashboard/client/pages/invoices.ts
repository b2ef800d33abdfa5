import { billing } from '../api.js';
import type { BalanceRow, Invoice, InvoiceHistoryEntry, InvoiceWithBalances } from '../billingTypes.js';
import { h, table, type Child } from '../dom.js';
import { formatInstant } from '../format.js';
import { shownInSteps } from '../paging.js';
import { link, linkWithQuery } from '../router.js';
import { code, facts, heading, section, tags } from '../view.js';
import { billingAmount } from './billingAmounts.js';

export async function invoicesPage(): Promise<HTMLElement> {
  const invoices = await billing<Invoice[]>('GET', '/invoices');
  return h(
    'div',
    null,
    heading('Billing', 'Invoices'),
    shownInSteps({
      caption: 'Invoices, oldest first',
      head: ['Invoice', 'Line items', 'Version', 'Created', 'Modified'],
      testId: 'invoices',
      rows: invoices,
      row: (invoice) => [
        link({ page: 'invoice', invoiceId: invoice.id }, invoice.id),
        String(invoice.line_items.length),
        String(invoice.version),
        formatInstant(invoice.created),
        formatInstant(invoice.modified),
      ],
    }),
  );
}

export async function invoicePage(invoiceId: string): Promise<HTMLElement> {
  const path = `/invoices/${encodeURIComponent(invoiceId)}`;
  const [invoice, history] = await Promise.all([
    billing<InvoiceWithBalances>('GET', path),
    billing<InvoiceHistoryEntry[]>('GET', `${path}/history`),
  ]);
  return h(
    'div',
    null,
    heading(
      'Invoice',
      invoice.id,
      facts([
        ['Version', String(invoice.version)],
        ['Created', formatInstant(invoice.created)],
        ['Modified', invoice.modified ? formatInstant(invoice.modified) : null],
        ['Tags', tags(invoice.tags)],
        [
          'Payment flows',
          linkWithQuery(
            { page: 'paymentFlows' },
            new URLSearchParams({ invoice: invoice.id }),
            false,
            'of this invoice',
          ),
        ],
      ]),
    ),
    section('Balances', balanceTable('Balances per currency', invoice.balances, 'invoice')),
    section(
      'Balances per user',
      invoice.users.length
        ? invoice.users.map((user) =>
            balanceTable(`User ${user.external_id}`, user.balances, `user:${user.external_id}`),
          )
        : h('p', { class: 'muted' }, 'none'),
    ),
    section(
      'Line items',
      table(
        'Line items',
        ['Id', 'Type', 'User', 'Product', 'Description', 'Amount'],
        invoice.line_items.map((item) => [
          code(item.id),
          item.type,
          item.user_id,
          item.product_id,
          item.description,
          billingAmount(item.price.amount, item.currency_code),
        ]),
      ),
    ),
    section(
      'Payments',
      table(
        'Allocations of transactions to this invoice, oldest first',
        ['Posted', 'Type', 'User', 'Amount', 'Transaction'],
        invoice.payments.map((payment) => [
          formatInstant(payment.posted),
          payment.type,
          payment.user.external_id,
          billingAmount(payment.amount, payment.currency),
          code(payment.transaction.external_id),
        ]),
      ),
    ),
    section('Versions', h('ol', { class: 'versions', reversed: true }, [...history].reverse().map(versionItem))),
  );
}

function balanceTable(caption: string, rows: BalanceRow[], figure: string): HTMLTableElement {
  const cells = (row: BalanceRow, side: 'payins' | 'payouts' | 'net'): Child[] => [
    billingAmount(row[side].expected, row.currency),
    billingAmount(row[side].actual, row.currency),
    billingAmount(row[side].remaining, row.currency, `${figure}:${side}-remaining:${row.currency}`),
  ];
  return table(
    caption,
    [
      'Currency',
      'Payins expected',
      'Payins actual',
      'Payins remaining',
      'Payouts expected',
      'Payouts actual',
      'Payouts remaining',
      'Net expected',
      'Net actual',
      'Net remaining',
    ],
    rows.map((row) => [row.currency, ...cells(row, 'payins'), ...cells(row, 'payouts'), ...cells(row, 'net')]),
    { class: 'balances' },
  );
}

/** One version, with the line-item changes it made (the contract's diffs are cumulative: show the new ones). */
function versionItem(entry: InvoiceHistoryEntry, index: number, newestFirst: InvoiceHistoryEntry[]): HTMLElement {
  const previous = newestFirst[index + 1];
  const diff = entry.diff ?? [];
  const added = diff.slice(previous?.diff?.length ?? 0);
  const currencyOf = (lineItemId: string) =>
    entry.line_items.find((item) => item.id === lineItemId)?.currency_code ?? '';
  return h(
    'li',
    { 'data-version': entry.version },
    h('strong', null, `Version ${entry.version}`),
    ` · ${formatInstant(entry.modified ?? entry.created)} · ${entry.line_items.length} line items`,
    entry.version === 1
      ? h('p', { class: 'muted' }, 'Created.')
      : added.length
        ? h(
            'ul',
            { class: 'diff' },
            added.map((change) =>
              change.op === 'update'
                ? h(
                    'li',
                    { class: 'diff-update' },
                    `changed ${change.id}: `,
                    billingAmount(change.old_amount, currencyOf(change.id)),
                    ' → ',
                    billingAmount(change.new_amount, currencyOf(change.id)),
                  )
                : h(
                    'li',
                    { class: `diff-${change.op}` },
                    `${change.op === 'add' ? 'added' : 'removed'} ${change.item.id} (${change.item.description}): `,
                    billingAmount(change.item.price.amount, change.item.currency_code),
                  ),
            ),
          )
        : h('p', { class: 'muted' }, 'Tags changed.'),
  );
}
