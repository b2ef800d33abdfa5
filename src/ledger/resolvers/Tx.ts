import type { TxResolvers } from '../../../generated/ledger.js';
import type { LedgerEntryRow, LedgerLineRow } from '../../db/ledgerEntries.js';
import type { TxRow } from '../../db/externalTxs.js';
import type { GqlContext } from '../context.js';
import { WHOLE_PAGE } from '../../core/pagination.js';

const newestPostedFirst = <T extends { posted: Date; id: string }>(a: T, b: T) =>
  b.posted.getTime() - a.posted.getTime() || (a.id < b.id ? 1 : -1);

/** Entries that reconciled the transaction (reversed ones included), newest posted first. */
async function reconcilingEntries(row: TxRow, { load }: GqlContext): Promise<LedgerEntryRow[]> {
  const reconciliations = await load.txReconciliations.load(row.id);
  const entries = await load.entry.loadMany([...new Set(reconciliations.map((item) => item.entryId))]);
  return entries
    .filter((entry): entry is LedgerEntryRow => entry !== undefined && !(entry instanceof Error))
    .sort(newestPostedFirst);
}

/** The lines that reconciled the transaction, newest posted first. */
async function reconcilingLines(row: TxRow, ctx: GqlContext): Promise<LedgerLineRow[]> {
  const reconciliations = await ctx.load.txReconciliations.load(row.id);
  const lines = await Promise.all(
    reconciliations.map(async (item) =>
      (await ctx.load.entryLines.load(item.entryId)).find((line) => line.position === item.position),
    ),
  );
  return lines.filter((line): line is LedgerLineRow => line !== undefined).sort(newestPostedFirst);
}

export const Tx: TxResolvers = {
  externalAccountId: (row) => row.accountId,
  currency: (row) => row.currency,
  posted: (row) => row.posted.toISOString(),
  date: (row) => row.posted.toISOString().slice(0, 10),
  deletedAt: (row) => row.deletedAt?.toISOString() ?? null,
  isDeleted: (row) => row.deletedAt !== null,
  externalAccount: async (row, _args, { load }) => (await load.externalAccount.load(row.accountId))!,
  link: async (row, _args, { load }) => (await load.link.load(row.linkId))!,
  // A transaction is reconciled at most once per linked account: these lists are short.
  ledgerEntries: async (row, _args, ctx) => ({ nodes: await reconcilingEntries(row, ctx), pageInfo: WHOLE_PAGE }),
  ledgerEntryIds: async (row, _args, ctx) => (await reconcilingEntries(row, ctx)).map((entry) => entry.id),
  ledgerLines: async (row, _args, ctx) => ({ nodes: await reconcilingLines(row, ctx), pageInfo: WHOLE_PAGE }),
  ledgerLineIds: async (row, _args, ctx) => (await reconcilingLines(row, ctx)).map((line) => line.id),
  workspaceId: (row) => row.workspaceId,
};
