import type { LedgerEntryResolvers } from '../../../generated/ledger.js';
import { pageEntryHistory } from '../../db/ledgerLists.js';
import { WHOLE_PAGE } from '../../core/pagination.js';

// Own bounds are stored as precondition/postcondition, total bounds beside them as total*.
type StoredCondition = {
  accountId: string;
  currency: string;
  precondition?: object;
  postcondition?: object;
  totalPrecondition?: object;
  totalPostcondition?: object;
};

const side = (ownBalance: object | undefined, totalBalance: object | undefined) =>
  ownBalance || totalBalance ? { ownBalance: ownBalance ?? null, totalBalance: totalBalance ?? null } : null;

export const LedgerEntry: LedgerEntryResolvers = {
  posted: (row) => row.posted.toISOString(),
  created: (row) => row.created.toISOString(),
  // The posting date in UTC; balance periods use the ledger's offset (see DateFilter).
  date: (row) => row.posted.toISOString().slice(0, 10),
  dashboardUrl: (row, _args, ctx) => ctx.dashboardUrl({ page: 'entry', entryId: row.id }),
  // An entry has at most 30 lines: they come as one page.
  lines: async (row, _args, { load }) => ({ nodes: await load.entryLines.load(row.id), pageInfo: WHOLE_PAGE }),
  ledger: async (row, _args, { load }) => (await load.ledger.load(row.ledgerId))!,
  // Created is read only when asked (LedgerEntryGroup.created), from the group's first entry.
  groups: (row) =>
    row.groups.map((group) => ({
      workspaceId: row.workspaceId,
      ledgerId: row.ledgerId,
      key: group.key,
      value: group.value,
    })),
  conditions: async (row, _args, { load }) =>
    Promise.all(
      (row.conditions as StoredCondition[]).map(async (condition) => ({
        account: (await load.account.load(condition.accountId))!,
        currency: condition.currency,
        precondition: side(condition.precondition, condition.totalPrecondition),
        postcondition: side(condition.postcondition, condition.totalPostcondition),
      })),
    ),
  // Reversed and reversing entries leave lists unless they are asked for (showHidden).
  hidden: (row) => row.reversesId !== null || row.reversedById !== null,
  isReversal: (row) => row.reversesId !== null,
  isReversed: (row) => row.reversedById !== null,
  reverses: async (row, _args, { load }) => (row.reversesId ? ((await load.entry.load(row.reversesId)) ?? null) : null),
  reversedBy: async (row, _args, { load }) =>
    row.reversedById ? ((await load.entry.load(row.reversedById)) ?? null) : null,
  reversedAt: (row) => row.reversedAt?.toISOString() ?? null,
  reversalHistory: async (row, args, { sql, pages }) => {
    const historyPages = pages(`entry-history:${row.ledgerId}:${row.ik}`);
    const request = historyPages.request(args);
    const rows = await pageEntryHistory(sql, row.workspaceId, row.ledgerId, row.ik, request);
    return historyPages.page(request, rows, (entry) => [String(entry.reversalPosition)]);
  },
};
