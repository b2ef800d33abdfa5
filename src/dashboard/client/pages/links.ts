import { graphql } from '../api.js';
import { h, table } from '../dom.js';
import { formatInstant, type CurrencyRef } from '../format.js';
import { pagedTable, type Page } from '../paging.js';
import { LINK, LINKS, UNRECONCILED_TXS } from '../queries.js';
import { link } from '../router.js';
import { amounts, code, facts, found, heading, section } from '../view.js';

type LinkSummary = { __typename: string; id: string; name: string; created: string };

type Tx = {
  id: string;
  externalId: string;
  description: string;
  amount: string;
  posted: string;
  currency: CurrencyRef;
};

type Link = LinkSummary & {
  externalAccounts: {
    nodes: {
      id: string;
      externalId: string;
      name: string;
      ledgerAccounts: { nodes: { id: string; path: string; ledger: { id: string; name: string } }[] };
    }[];
  };
};

const kind = (typename: string) => typename.replace(/Link$/, '') || 'Custom';

export async function linksPage(): Promise<HTMLElement> {
  const { links } = await graphql<{ links: { nodes: LinkSummary[] } }>(LINKS);
  return h(
    'div',
    null,
    heading('Workspace', 'Links'),
    table(
      'Links to external systems',
      ['Name', 'Kind', 'Created'],
      links.nodes.map((item) => [
        link({ page: 'link', linkId: item.id }, item.name),
        kind(item.__typename),
        formatInstant(item.created),
      ]),
    ),
  );
}

export async function linkPage(linkId: string): Promise<HTMLElement> {
  const answer = await graphql<{ link: Link | null }>(LINK, { id: linkId });
  const shown = found(answer.link, 'Link');
  const accounts = await Promise.all(
    shown.externalAccounts.nodes.map(async (account) =>
      section(
        `External account ${account.name}`,
        facts([['External id', code(account.externalId)]]),
        account.ledgerAccounts.nodes.length
          ? await Promise.all(account.ledgerAccounts.nodes.map(unreconciled))
          : h('p', { class: 'muted' }, 'Not linked to a ledger account.'),
      ),
    ),
  );
  return h(
    'div',
    null,
    heading(
      'Link',
      shown.name,
      facts([
        ['Kind', kind(shown.__typename)],
        ['Created', formatInstant(shown.created)],
      ]),
    ),
    accounts.length ? accounts : h('p', { class: 'muted' }, 'No external accounts synced yet.'),
  );
}

/** The linked ledger account's transactions that no entry has reconciled yet, a page at a time. */
async function unreconciled(ledgerAccount: {
  id: string;
  path: string;
  ledger: { name: string };
}): Promise<HTMLElement> {
  return h(
    'div',
    { class: 'unreconciled', 'data-account': ledgerAccount.path },
    h(
      'p',
      null,
      'Linked to ',
      link({ page: 'account', accountId: ledgerAccount.id }, ledgerAccount.path),
      ` in ${ledgerAccount.ledger.name}`,
    ),
    await pagedTable<Tx>({
      caption: `Unreconciled transactions of ${ledgerAccount.path}`,
      head: ['Posted', 'Amount', 'External id', 'Description'],
      load: async (after) =>
        (
          await graphql<{ ledgerAccount: { unreconciledTxs: Page<Tx> } }>(UNRECONCILED_TXS, {
            id: ledgerAccount.id,
            after,
          })
        ).ledgerAccount.unreconciledTxs,
      row: (tx) => [
        formatInstant(tx.posted),
        amounts([tx], `unreconciled:${ledgerAccount.path}`),
        code(tx.externalId),
        tx.description,
      ],
    }),
  );
}
