import type { LedgerEntryResolvers } from '../../../generated/ledger.js';
import { builtInCurrency } from '../../core/currencies.js';
import { findLedgerAccount } from '../../db/ledgerAccounts.js';
import { linesOfEntry } from '../../db/ledgerEntries.js';
import { findLedger } from '../../db/ledgers.js';

type StoredCondition = { accountId: string; currency: string; precondition?: object; postcondition?: object };

const WHOLE_PAGE = { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null };

export const LedgerEntry: LedgerEntryResolvers = {
  posted: (row) => row.posted.toISOString(),
  created: (row) => row.created.toISOString(),
  // The posting date in UTC; balance periods use the ledger's offset (see DateFilter).
  date: (row) => row.posted.toISOString().slice(0, 10),
  // Tally has no web console; the contract promises a stable URN instead.
  dashboardUrl: (row) => `urn:tally:ledger-entry:${row.id}`,
  // An entry has at most 30 lines: they come as one page.
  lines: async (row, _args, { sql }) => ({ nodes: await linesOfEntry(sql, row.workspaceId, row.id), pageInfo: WHOLE_PAGE }),
  ledger: async (row, _args, { sql }) => (await findLedger(sql, row.workspaceId, { id: row.ledgerId }))!,
  groups: async (row, _args, { sql }) => {
    if (row.groups.length === 0) return [];
    const ledger = (await findLedger(sql, row.workspaceId, { id: row.ledgerId }))!;
    return row.groups.map((group) => ({
      ...group, ledger, ledgerId: row.ledgerId, created: null,
      dashboardUrl: `urn:tally:ledger-entry-group:${row.ledgerId}:${group.key}:${group.value}`,
    })) as never;
  },
  conditions: async (row, _args, { sql }) => Promise.all((row.conditions as StoredCondition[]).map(async (condition) => ({
    account: (await findLedgerAccount(sql, row.workspaceId, { id: condition.accountId }))!,
    currency: builtInCurrency(condition.currency),
    precondition: condition.precondition ? { ownBalance: condition.precondition } : null,
    postcondition: condition.postcondition ? { ownBalance: condition.postcondition } : null,
  }))) as never,
  // Reversal arrives with reverseLedgerEntry; until then no entry is reversed or reversing.
  hidden: () => false,
  isReversal: () => false,
  isReversed: () => false,
  reverses: () => null,
  reversedBy: () => null,
  reversedAt: () => null,
};
