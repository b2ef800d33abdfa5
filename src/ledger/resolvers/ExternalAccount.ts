import type { ExternalAccountResolvers } from '../../../generated/ledger.js';
import { pageTxsOfAccount } from '../../db/externalTxs.js';
import { pageLedgerAccounts } from '../../db/ledgerAccounts.js';

export const ExternalAccount: ExternalAccountResolvers = {
  currency: (row) => row.currency,
  link: async (row, _args, { load }) => (await load.link.load(row.linkId))!,
  ledgerAccounts: async (row, args, { sql, pages }) => {
    const accountPages = pages(`external-account-ledger-accounts:${row.id}`);
    const request = accountPages.request(args);
    const rows = await pageLedgerAccounts(sql, row.workspaceId, request, { linkedAccountIds: [row.id] });
    return accountPages.page(request, rows, (account) => [account.created.toISOString(), account.id]);
  },
  txs: async (row, args, { sql, pages }) => {
    const txPages = pages(`external-account-txs:${row.id}`);
    const request = txPages.request(args);
    const rows = await pageTxsOfAccount(sql, row.workspaceId, row.id, request);
    return txPages.page(request, rows, (tx) => [tx.postedMicros, tx.id]);
  },
};
