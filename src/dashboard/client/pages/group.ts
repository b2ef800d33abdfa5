import { graphql } from '../api.js';
import { h, table } from '../dom.js';
import { formatInstant, type CurrencyRef } from '../format.js';
import { pagedTable, type Page } from '../paging.js';
import { GROUP, GROUP_ENTRIES } from '../queries.js';
import { link } from '../router.js';
import { amounts, facts, found, heading, section } from '../view.js';
import { entryRow, type EntrySummary } from './ledger.js';

type Group = {
  key: string;
  value: string;
  created: string | null;
  ledger: { id: string; name: string };
  balances: { nodes: { account: { id: string; path: string }; currency: CurrencyRef; ownBalance: string }[] };
};

export async function groupPage(ledgerId: string, key: string, value: string): Promise<HTMLElement> {
  const variables = { ledger: ledgerId, key, value };
  const { ledgerEntryGroup } = await graphql<{ ledgerEntryGroup: Group | null }>(GROUP, variables);
  const group = found(ledgerEntryGroup, 'Entry group');
  return h(
    'div',
    null,
    heading(
      'Entry group',
      `${group.key}: ${group.value}`,
      facts([
        ['Ledger', link({ page: 'ledger', ledgerId: group.ledger.id }, group.ledger.name)],
        ['Created', formatInstant(group.created)],
      ]),
    ),
    section(
      'Balances',
      table(
        'What the group’s entries add to each account',
        ['Account', 'Balance'],
        group.balances.nodes.map((balance) => [
          link({ page: 'account', accountId: balance.account.id }, balance.account.path),
          amounts([{ amount: balance.ownBalance, currency: balance.currency }], `group:${balance.account.path}`),
        ]),
      ),
    ),
    section(
      'Entries',
      await pagedTable<EntrySummary>({
        caption: 'Entries of the group, newest first',
        head: ['Posted', 'Type', 'Description', 'Ik'],
        testId: 'group-entries',
        load: async (after) =>
          (
            await graphql<{ ledgerEntryGroup: { ledgerEntries: Page<EntrySummary> } }>(GROUP_ENTRIES, {
              ...variables,
              after,
            })
          ).ledgerEntryGroup.ledgerEntries,
        row: entryRow,
      }),
    ),
  );
}
