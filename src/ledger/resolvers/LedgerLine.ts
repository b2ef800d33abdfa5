import type { LedgerLineResolvers } from '../../../generated/ledger.js';
import { lineDirection } from '../../core/entries.js';
import type { LedgerLineRow } from '../../db/ledgerEntries.js';
import type { GqlContext } from '../context.js';

const entryOf = async (row: LedgerLineRow, { load }: GqlContext) => (await load.entry.load(row.entryId))!;

/** The line at the same position of another entry (a reversal mirrors its original line by line). */
async function mirrorLine(entryId: string | null, position: number, { load }: GqlContext) {
  if (!entryId) return null;
  return (await load.entryLines.load(entryId)).find((line) => line.position === position) ?? null;
}

/**
 * The transaction the line reconciles: recorded for the reconciling entry's line, and mirrored
 * by the line at the same position of its reversal.
 */
async function reconciledTx(row: LedgerLineRow, ctx: GqlContext) {
  const entry = await entryOf(row, ctx);
  const reconciliations = await ctx.load.entryReconciliations.load(entry.reversesId ?? entry.id);
  const found = reconciliations.find((item) => item.position === row.position);
  return found ? ((await ctx.load.tx.load(found.txId)) ?? null) : null;
}

export const LedgerLine: LedgerLineResolvers = {
  // Exact decimal text from PostgreSQL, canonical as Int96 output: no leading zeros, no "-0".
  amount: (row, args) => (args.absolute ? row.amount.replace(/^-/, '') : row.amount),
  type: async (row, _args, { load }) =>
    lineDirection((await load.account.load(row.accountId))!.type, BigInt(row.amount)),
  currency: (row) => row.currency,
  account: async (row, _args, { load }) => (await load.account.load(row.accountId))!,
  ledgerEntry: (row, _args, ctx) => entryOf(row, ctx),
  ledgerEntryId: (row) => row.entryId,
  ledger: async (row, _args, { load }) => (await load.ledger.load(row.ledgerId))!,
  posted: (row) => row.posted.toISOString(),
  created: (row) => row.created.toISOString(),
  date: (row) => row.posted.toISOString().slice(0, 10),
  tags: (row) => row.tags,
  hidden: async (row, _args, ctx) => {
    const entry = await entryOf(row, ctx);
    return entry.reversesId !== null || entry.reversedById !== null;
  },
  isReversal: async (row, _args, ctx) => (await entryOf(row, ctx)).reversesId !== null,
  isReversed: async (row, _args, ctx) => (await entryOf(row, ctx)).reversedById !== null,
  reverses: async (row, _args, ctx) => mirrorLine((await entryOf(row, ctx)).reversesId, row.position, ctx),
  reversedBy: async (row, _args, ctx) => mirrorLine((await entryOf(row, ctx)).reversedById, row.position, ctx),
  reversedAt: async (row, _args, ctx) => (await entryOf(row, ctx)).reversedAt?.toISOString() ?? null,
  tx: (row, _args, ctx) => reconciledTx(row, ctx),
  txId: async (row, _args, ctx) => (await reconciledTx(row, ctx))?.id ?? null,
  externalTxId: async (row, _args, ctx) => (await reconciledTx(row, ctx))?.externalId ?? null,
  // Custom links carry no transfer details or counterpart transactions; provider links would.
  externalTransferId: () => null,
  externalTransferType: () => null,
  otherTxId: () => null,
  otherTxExternalId: () => null,
  otherTxExternalAccountId: () => null,
  otherTxExternalAccountExternalId: () => null,
};
