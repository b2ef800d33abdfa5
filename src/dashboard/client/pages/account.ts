import { graphql } from '../api.js';
import { balanceChart, type ChartPoint } from '../chart.js';
import { h } from '../dom.js';
import { formatInstant, type CurrencyRef } from '../format.js';
import { pagedTable, type Page } from '../paging.js';
import { ACCOUNT, ACCOUNT_LINES, ACCOUNT_SERIES } from '../queries.js';
import { link, linkWithQuery, searchParam } from '../router.js';
import { seriesSpan, SPANS, type Granularity } from '../series.js';
import { amounts, code, facts, found, heading, section, type Amount } from '../view.js';

type Account = {
  id: string;
  path: string;
  name: string | null;
  type: string;
  created: string;
  currencyMode: string;
  ik: string;
  currency: CurrencyRef | null;
  consistencyConfig: { lines: string; ownBalanceUpdates: string; totalBalanceUpdates: string | null };
  ledger: { id: string; name: string; balanceUTCOffset: string };
  parentLedgerAccount: { id: string; path: string } | null;
  linkedAccount: { id: string; name: string; externalId: string; link: { id: string; name: string } } | null;
  ownBalances: { nodes: Amount[] };
  balances: { nodes: Amount[] };
};

type Balances = { nodes: { at: string; amount: { amount: string } }[] };
type Changes = { nodes: { period: string; amount: { amount: string } }[] };
type Series = { balancesBefore?: Balances; balancesAfter: Balances; changesBefore?: Changes; changesAfter: Changes };

type Line = {
  id: string;
  posted: string;
  amount: string;
  description: string | null;
  currency: CurrencyRef;
  ledgerEntryId: string;
  ledgerEntry: { type: string | null; description: string | null };
};

export async function accountPage(accountId: string): Promise<HTMLElement> {
  const { ledgerAccount } = await graphql<{ ledgerAccount: Account | null }>(ACCOUNT, { id: accountId });
  const account = found(ledgerAccount, 'Account');
  const currencies = currenciesOf(account);
  const granularity = searchParam('granularity') === 'monthly' ? 'monthly' : 'daily';
  const chosen = currencies.find((currency) => currencyKey(currency) === searchParam('currency')) ?? currencies[0];
  // The series and the first page of lines are independent reads: ask for both at once.
  const [series, lines] = await Promise.all([
    chosen
      ? chart(account, chosen, granularity)
      : h('p', { class: 'muted' }, 'No currency yet: the account has no lines.'),
    pagedTable<Line>({
      caption: 'Lines of this account, newest posted first',
      head: ['Posted', 'Amount', 'Entry', 'Description'],
      testId: 'account-lines',
      load: async (after) =>
        (await graphql<{ ledgerAccount: { lines: Page<Line> } }>(ACCOUNT_LINES, { id: accountId, after })).ledgerAccount
          .lines,
      row: (line) => [
        formatInstant(line.posted),
        amounts([line], 'line'),
        link({ page: 'entry', entryId: line.ledgerEntryId }, line.ledgerEntry.type ?? 'entry'),
        line.description ?? line.ledgerEntry.description ?? '',
      ],
    }),
  ]);
  return h(
    'div',
    null,
    heading(
      'Account',
      account.path,
      facts([
        ['Name', account.name],
        ['Ledger', link({ page: 'ledger', ledgerId: account.ledger.id }, account.ledger.name)],
        [
          'Parent',
          account.parentLedgerAccount &&
            link({ page: 'account', accountId: account.parentLedgerAccount.id }, account.parentLedgerAccount.path),
        ],
        ['Type', account.type],
        ['Currency mode', account.currencyMode],
        [
          'Consistency',
          `lines ${account.consistencyConfig.lines}, own balance ${account.consistencyConfig.ownBalanceUpdates}` +
            (account.consistencyConfig.totalBalanceUpdates
              ? `, total balance ${account.consistencyConfig.totalBalanceUpdates}`
              : ''),
        ],
        [
          'Linked account',
          account.linkedAccount &&
            link(
              { page: 'link', linkId: account.linkedAccount.link.id },
              `${account.linkedAccount.name} (${account.linkedAccount.link.name})`,
            ),
        ],
        ['Ik', code(account.ik)],
        ['Created', formatInstant(account.created)],
      ]),
    ),
    section(
      'Balances',
      facts([
        ['Own balance', amounts(account.ownBalances.nodes, 'own')],
        ['Total balance', amounts(account.balances.nodes, 'total')],
      ]),
    ),
    section('Balance over time', chooser(accountId, currencies, chosen, granularity), series),
    section('Lines', lines),
  );
}

const currencyKey = (currency: CurrencyRef) => currency.customCurrencyId ?? currency.code;

/** The currencies the account holds or is bound to, each once. */
function currenciesOf(account: Account): CurrencyRef[] {
  const all = [...account.balances.nodes.map((node) => node.currency), ...(account.currency ? [account.currency] : [])];
  return all.filter((currency, i) => all.findIndex((other) => currencyKey(other) === currencyKey(currency)) === i);
}

function chooser(
  accountId: string,
  currencies: CurrencyRef[],
  chosen: CurrencyRef | undefined,
  granularity: Granularity,
): HTMLElement {
  const option = (currency: CurrencyRef | undefined, span: keyof typeof SPANS, text: string, current: boolean) => {
    const query = new URLSearchParams({ granularity: span, ...(currency && { currency: currencyKey(currency) }) });
    return linkWithQuery({ page: 'account', accountId }, query, current, text);
  };
  return h(
    'nav',
    { class: 'chooser', 'aria-label': 'Series' },
    Object.entries(SPANS).map(([span, { label }]) => option(chosen, span as Granularity, label, span === granularity)),
    currencies.length > 1 &&
      currencies.map((currency) => option(currency, granularity, currencyKey(currency), currency === chosen)),
  );
}

async function chart(account: Account, currency: CurrencyRef, granularity: Granularity): Promise<HTMLElement> {
  const span = seriesSpan(granularity, account.ledger.balanceUTCOffset);
  const { ledgerAccount } = await graphql<{ ledgerAccount: Series }>(ACCOUNT_SERIES, {
    id: account.id,
    currency: { code: currency.code, customCurrencyId: currency.customCurrencyId ?? undefined },
    anchor: span.anchor,
    before: -span.before,
    after: span.after,
    withBefore: span.before > 0,
    granularity,
  });
  const balances = [...(ledgerAccount.balancesBefore?.nodes ?? []), ...ledgerAccount.balancesAfter.nodes];
  const changes = [...(ledgerAccount.changesBefore?.nodes ?? []), ...ledgerAccount.changesAfter.nodes];
  const points: ChartPoint[] = balances.map((node, i) => ({
    label: node.at,
    balance: node.amount.amount,
    change: changes[i]?.amount.amount ?? '0',
  }));
  return balanceChart(
    `Balance of ${account.path}, ${span.label.toLowerCase()}, at UTC${account.ledger.balanceUTCOffset}`,
    points,
    currency,
  );
}
