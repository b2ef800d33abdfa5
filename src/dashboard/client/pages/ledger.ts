import { graphql } from '../api.js';
import { h, table, type Child } from '../dom.js';
import { formatInstant } from '../format.js';
import { pagedTable, type Page } from '../paging.js';
import { LEDGER, LEDGER_ACCOUNTS, LEDGER_ENTRIES, LEDGER_GROUPS } from '../queries.js';
import { link } from '../router.js';
import { amounts, code, facts, found, heading, section, type Amount } from '../view.js';
import { schemaVersion, type LedgerSummary } from './ledgers.js';

type Ledger = LedgerSummary & {
  schema: { key: string; name: string; version: { version: number; json: SchemaJson } } | null;
};
type SchemaJson = { ledgerEntries?: { types?: { type: string; description?: string }[] } };

export type AccountRow = {
  id: string;
  path: string;
  name: string | null;
  type: string;
  parentLedgerAccountId: string | null;
  currencyMode: string;
  consistencyConfig: { ownBalanceUpdates: string };
  linkedAccount: { id: string; name: string; link: { id: string; name: string } } | null;
  ownBalances: { nodes: Amount[] };
  balances: { nodes: Amount[] };
};

export type EntrySummary = { id: string; ik: string; type: string | null; description: string | null; posted: string };

type GroupSummary = { key: string; value: string; created: string | null };

export async function ledgerPage(ledgerId: string): Promise<HTMLElement> {
  // The ledger and the first page of each list are independent reads: ask for them at once.
  const [answer, tree, entries, groups] = await Promise.all([
    graphql<{ ledger: Ledger | null }>(LEDGER, { id: ledgerId }),
    accountTree(ledgerId),
    pagedTable<EntrySummary>({
      caption: 'Entries, newest first',
      head: ['Posted', 'Type', 'Description', 'Ik'],
      testId: 'ledger-entries',
      load: async (after) =>
        found(
          (
            await graphql<{ ledger: { ledgerEntries: Page<EntrySummary> } | null }>(LEDGER_ENTRIES, {
              id: ledgerId,
              after,
            })
          ).ledger,
          'Ledger',
        ).ledgerEntries,
      row: entryRow,
    }),
    pagedTable<GroupSummary>({
      caption: 'Entry groups',
      head: ['Group', 'Created'],
      testId: 'ledger-groups',
      load: async (after) =>
        found(
          (
            await graphql<{ ledger: { ledgerEntryGroups: Page<GroupSummary> } | null }>(LEDGER_GROUPS, {
              id: ledgerId,
              after,
            })
          ).ledger,
          'Ledger',
        ).ledgerEntryGroups,
      row: (group) => [
        link({ page: 'group', ledgerId, key: group.key, value: group.value }, `${group.key}: ${group.value}`),
        formatInstant(group.created),
      ],
    }),
  ]);
  const shown = found(answer.ledger, 'Ledger');
  const entryTypes = shown.schema?.version.json.ledgerEntries?.types ?? [];
  return h(
    'div',
    null,
    heading(
      'Ledger',
      shown.name,
      facts([
        ['Ik', code(shown.ik)],
        ['Schema', schemaVersion(shown)],
        ['UTC offset', shown.balanceUTCOffset],
        ['Type', shown.type],
        ['Created', formatInstant(shown.created)],
      ]),
    ),
    section('Chart of accounts', tree),
    section(
      'Entry types',
      table(
        'Entry types of the ledger’s schema',
        ['Type', 'Description'],
        entryTypes.map((type) => [code(type.type), type.description ?? '']),
      ),
    ),
    section('Entries', entries),
    section('Entry groups', groups),
  );
}

export function entryRow(entry: EntrySummary): Child[] {
  return [
    link({ page: 'entry', entryId: entry.id }, formatInstant(entry.posted)),
    entry.type ? code(entry.type) : h('span', { class: 'muted' }, 'untyped'),
    entry.description ?? '',
    code(entry.ik),
  ];
}

/** Accounts in path order, indented by depth; read 100 at a time. */
async function accountTree(ledgerId: string): Promise<HTMLElement> {
  const loaded: AccountRow[] = [];
  const holder = h('div', { class: 'tree' });
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Show more accounts');
  const load = async (after: string | undefined) => {
    more.disabled = true;
    const answer = await graphql<{ ledger: { ledgerAccounts: Page<AccountRow> } | null }>(LEDGER_ACCOUNTS, {
      id: ledgerId,
      after,
    });
    const ledger = found(answer.ledger, 'Ledger');
    loaded.push(...ledger.ledgerAccounts.nodes);
    holder.replaceChildren(treeTable(loaded));
    more.hidden = !ledger.ledgerAccounts.pageInfo.hasNextPage;
    more.disabled = false;
    more.onclick = () => void load(ledger.ledgerAccounts.pageInfo.endCursor ?? undefined);
  };
  await load(undefined);
  return h('div', null, holder, more);
}

const comparePaths = (a: string[], b: string[]) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
};

function treeTable(accounts: AccountRow[]): HTMLTableElement {
  const sorted = accounts
    .map((account) => ({ account, segments: account.path.split('/') }))
    .sort((a, b) => comparePaths(a.segments, b.segments));
  const element = table(
    'Accounts as a tree, with their own balance and the balance including descendants',
    ['Account', 'Type', 'Own balance', 'Total balance', 'Own balance updates', 'Linked account'],
    sorted.map(({ account, segments }) => [
      h(
        'span',
        { class: 'tree-node', style: `padding-left: ${(segments.length - 1) * 1.25}rem` },
        link({ page: 'account', accountId: account.id }, segments.at(-1)),
        account.name ? h('span', { class: 'muted' }, ` ${account.name}`) : null,
      ),
      account.type,
      amounts(account.ownBalances.nodes, `own:${account.path}`),
      amounts(account.balances.nodes, `total:${account.path}`),
      account.consistencyConfig.ownBalanceUpdates,
      account.linkedAccount
        ? link({ page: 'link', linkId: account.linkedAccount.link.id }, account.linkedAccount.name)
        : '',
    ]),
  );
  element.classList.add('accounts');
  return element;
}
