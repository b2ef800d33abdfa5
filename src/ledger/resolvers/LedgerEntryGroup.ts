import type { LedgerEntryGroupBalanceResolvers, LedgerEntryGroupResolvers } from '../../../generated/ledger.js';
import { findGroup } from '../../db/ledgerGroups.js';
import { listEntries } from '../entries/lists.js';
import { listGroupBalances } from '../groups/groupLists.js';

export const LedgerEntryGroup: LedgerEntryGroupResolvers = {
  // Groups named by an entry carry no time of their own: it is the first member entry's.
  created: async (row, _args, { sql }) => {
    const created =
      row.created === undefined
        ? (await findGroup(sql, row.workspaceId, row.ledgerId, row.key, row.value))?.created
        : row.created;
    return created?.toISOString() ?? null;
  },
  dashboardUrl: (row, _args, ctx) =>
    ctx.dashboardUrl({ page: 'group', ledgerId: row.ledgerId, key: row.key, value: row.value }),
  ledger: async (row, _args, { load }) => (await load.ledger.load(row.ledgerId))!,
  ledgerEntries: async (row, args, ctx) => {
    const ledger = (await ctx.load.ledger.load(row.ledgerId))!;
    const group = { key: row.key, value: row.value };
    const filter = {
      ...args.filter,
      group: { ...args.filter?.group, all: [...(args.filter?.group?.all ?? []), group] },
    };
    return listEntries(
      ctx,
      ledger,
      { ...args, filter },
      undefined,
      `group-entries:${row.ledgerId}:${row.key}:${row.value}`,
    );
  },
  balances: (row, args, ctx) => listGroupBalances(ctx, row, args),
};

export const LedgerEntryGroupBalance: LedgerEntryGroupBalanceResolvers = {
  account: async (row, _args, { load }) => (await load.account.load(row.accountId))!,
  currency: (row) => row.currency,
  // Group balances are computed from the lines when read, so every mode gets the exact figure.
  ownBalance: (row) => row.amount,
};
