import type { LedgerAccountResolvers } from '../../../generated/ledger.js';
import { pageUnreconciledTxs } from '../../db/externalTxs.js';
import { pageLedgerAccounts } from '../../db/ledgerAccounts.js';
import { balanceSeries } from '../accounts/balanceSeries.js';
import { balanceChangeIn, balanceChangesByCurrency, balanceIn, balancesByCurrency } from '../accounts/balances.js';
import { listEntries, listLines } from '../entries/lists.js';

export const LedgerAccount: LedgerAccountResolvers = {
  created: (row) => row.created.toISOString(),
  currency: (row) => row.currencyCode,
  consistencyConfig: (row) => ({
    lines: row.consistency.lines as never,
    ownBalanceUpdates: row.consistency.ownBalanceUpdates as never,
    totalBalanceUpdates: (row.consistency.totalBalanceUpdates ?? null) as never,
  }),
  // Tally has no web console; the contract promises a stable URN instead.
  dashboardUrl: (row) => `urn:tally:ledger-account:${row.id}`,
  ledger: async (row, _args, { load }) => (await load.ledger.load(row.ledgerId))!,
  parentLedgerAccountId: (row) => row.parentId,
  parentLedgerAccount: async (row, _args, { load }) => (row.parentId ? (await load.account.load(row.parentId)) ?? null : null),
  ledgerEntries: async (row, args, ctx) => listEntries(ctx, (await ctx.load.ledger.load(row.ledgerId))!, args, row),
  lines: async (row, args, ctx) => listLines(ctx, (await ctx.load.ledger.load(row.ledgerId))!, args, row),
  childLedgerAccounts: async (row, args, { sql, pages }) => {
    const childPages = pages(`ledger-account-children:${row.id}`);
    const request = childPages.request(args);
    const rows = await pageLedgerAccounts(sql, row.workspaceId, request, { parentId: row.id });
    return childPages.page(request, rows, (child) => [child.created.toISOString(), child.id]);
  },
  linkedAccount: async (row, _args, { load }) => (row.linkedAccountId ? (await load.externalAccount.load(row.linkedAccountId)) ?? null : null),
  link: async (row, _args, { load }) => {
    const external = row.linkedAccountId ? await load.externalAccount.load(row.linkedAccountId) : undefined;
    return external ? (await load.link.load(external.linkId)) ?? null : null;
  },
  unreconciledTxs: async (row, args, { sql, pages }) => {
    const txPages = pages(`unreconciled-txs:${row.id}`);
    const request = txPages.request(args);
    const rows = row.linkedAccountId ? await pageUnreconciledTxs(sql, row.workspaceId, row.id, row.linkedAccountId, request) : [];
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
  ownBalances: (row, args, ctx) => balancesByCurrency(ctx, row, 'own', args) as never,
  childBalances: (row, args, ctx) => balancesByCurrency(ctx, row, 'child', args) as never,
  balances: (row, args, ctx) => balancesByCurrency(ctx, row, 'total', args) as never,
  ownBalanceChange: (row, args, ctx) => balanceChangeIn(ctx, row, 'own', args),
  childBalanceChange: (row, args, ctx) => balanceChangeIn(ctx, row, 'child', args),
  balanceChange: (row, args, ctx) => balanceChangeIn(ctx, row, 'total', args),
  ownBalanceChanges: (row, args, ctx) => balanceChangesByCurrency(ctx, row, 'own', args) as never,
  childBalanceChanges: (row, args, ctx) => balanceChangesByCurrency(ctx, row, 'child', args) as never,
  balanceChanges: (row, args, ctx) => balanceChangesByCurrency(ctx, row, 'total', args) as never,
  ownBalancesDuring: (row, args, ctx) => balanceSeries(ctx, row, 'own', 'balances', args) as never,
  childBalancesDuring: (row, args, ctx) => balanceSeries(ctx, row, 'child', 'balances', args) as never,
  balancesDuring: (row, args, ctx) => balanceSeries(ctx, row, 'total', 'balances', args) as never,
  ownBalanceChangesDuring: (row, args, ctx) => balanceSeries(ctx, row, 'own', 'changes', args) as never,
  childBalanceChangesDuring: (row, args, ctx) => balanceSeries(ctx, row, 'child', 'changes', args) as never,
  balanceChangesDuring: (row, args, ctx) => balanceSeries(ctx, row, 'total', 'changes', args) as never,
};
