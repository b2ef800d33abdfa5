import type { QueryResolvers } from '../../../../generated/ledger.js';
import { findGroup } from '../../../db/ledgerGroups.js';
import { findLedger } from '../../../db/ledgers.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';

/** A group by ledger, key and value; null when no entry of the ledger carries it. */
export const ledgerEntryGroup: NonNullable<QueryResolvers['ledgerEntryGroup']> = async (
  _parent,
  args,
  { sql, caller },
) => {
  const { ledger: match, key, value } = args.ledgerEntryGroup;
  const ledger = await findLedger(sql, caller.workspaceId, requireLedgerMatch(match));
  return ledger ? ((await findGroup(sql, caller.workspaceId, ledger.id, key, value)) ?? null) : null;
};
