import type { LedgerAccountResolvers } from '../../../generated/ledger.js';
import { pageUnreconciledTxs } from '../../db/externalTxs.js';
import { pageLedgerAccounts } from '../../db/ledgerAccounts.js';
import { balanceChangesDuring, balancesDuring } from '../accounts/balanceSeries.js';
import { balanceChangeIn, balanceChangesByCurrency, balanceIn, balancesByCurrency } from '../accounts/balances.js';
import { listEntries, listLines } from '../entries/lists.js';

export const LedgerAccount: LedgerAccountResolvers = {
  created: (row) => row.created.toISOString(),
  currency: (row) => row.currencyCode,
  consistencyConfig: (row) => ({
    lines: row.consistency.lines,
    ownBalanceUpdates: row.consistency.ownBalanceUpdates,
    totalBalanceUpdates: row.consistency.totalBalanceUpdates ?? null,
  }),
  dashboardUrl: (row, _args, ctx) => ctx.dashboardUrl({ page: 'account', accountId: row.id }),
  ledger: async (row, _args, { load }) => (await load.ledger.load(row.ledgerId))!,
  parentLedgerAccountId: (row) => row.parentId,
  parentLedgerAccount: async (row, _args, { load }) =>
    row.parentId ? ((await load.account.load(row.parentId)) ?? null) : null,
  ledgerEntries: async (row, args, ctx) => listEntries(ctx, (await ctx.load.ledger.load(row.ledgerId))!, args, row),
  lines: async (row, args, ctx) => listLines(ctx, (await ctx.load.ledger.load(row.ledgerId))!, args, row),
  childLedgerAccounts: async (row, args, { sql, pages }) => {
    const childPages = pages(`ledger-account-children:${row.id}`);
    const request = childPages.request(args);
    const rows = await pageLedgerAccounts(sql, row.workspaceId, request, { parentId: row.id });
    return childPages.page(request, rows, (child) => [child.created.toISOString(), child.id]);
  },
  linkedAccount: async (row, _args, { load }) =>
    row.linkedAccountId ? ((await load.externalAccount.load(row.linkedAccountId)) ?? null) : null,
  link: async (row, _args, { load }) => {
    const external = row.linkedAccountId ? await load.externalAccount.load(row.linkedAccountId) : undefined;
    return external ? ((await load.link.load(external.linkId)) ?? null) : null;
  },
  unreconciledTxs: async (row, args, { sql, pages }) => {
    const txPages = pages(`unreconciled-txs:${row.id}`);
    const request = txPages.request(args);
    const rows = row.linkedAccountId
      ? await pageUnreconciledTxs(sql, row.workspaceId, row.id, row.linkedAccountId, request)
      : [];
    return txPages.page(request, rows, (tx) => [tx.postedMicros, tx.id]);
  },
  // Payment settings of accounts belong to the experimental payments, which Tally keeps in the schema only.
  payment: () => null,
  // Clearing accounts of group reconciliation are not tracked: no account reports a clearing status.
  clearingStatus: () => null,
  postedWindow: () => null,
  workspaceId: (row) => row.workspaceId,
  ownBalance: (row, args, ctx) => balanceIn(ctx, row, 'own', args),
  childBalance: (row, args, ctx) => balanceIn(ctx, row, 'child', args),
  balance: (row, args, ctx) => balanceIn(ctx, row, 'total', args),
  ownBalances: (row, args, ctx) => balancesByCurrency(ctx, row, 'own', args),
  childBalances: (row, args, ctx) => balancesByCurrency(ctx, row, 'child', args),
  balances: (row, args, ctx) => balancesByCurrency(ctx, row, 'total', args),
  ownBalanceChange: (row, args, ctx) => balanceChangeIn(ctx, row, 'own', args),
  childBalanceChange: (row, args, ctx) => balanceChangeIn(ctx, row, 'child', args),
  balanceChange: (row, args, ctx) => balanceChangeIn(ctx, row, 'total', args),
  ownBalanceChanges: (row, args, ctx) => balanceChangesByCurrency(ctx, row, 'own', args),
  childBalanceChanges: (row, args, ctx) => balanceChangesByCurrency(ctx, row, 'child', args),
  balanceChanges: (row, args, ctx) => balanceChangesByCurrency(ctx, row, 'total', args),
  ownBalancesDuring: (row, args, ctx) => balancesDuring(ctx, row, 'own', args),
  childBalancesDuring: (row, args, ctx) => balancesDuring(ctx, row, 'child', args),
  balancesDuring: (row, args, ctx) => balancesDuring(ctx, row, 'total', args),
  ownBalanceChangesDuring: (row, args, ctx) => balanceChangesDuring(ctx, row, 'own', args),
  childBalanceChangesDuring: (row, args, ctx) => balanceChangesDuring(ctx, row, 'child', args),
  balanceChangesDuring: (row, args, ctx) => balanceChangesDuring(ctx, row, 'total', args),
};
