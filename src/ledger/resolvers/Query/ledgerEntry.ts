import type { QueryResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { findLedgerEntry } from '../../../db/ledgerEntries.js';
import { findLedger } from '../../../db/ledgers.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';

/** By id, or by ik within a ledger; null when nothing matches. */
export const ledgerEntry: NonNullable<QueryResolvers['ledgerEntry']> = async (_parent, args, { sql, caller }) => {
  const { id, ik, ledger: ledgerMatch } = args.ledgerEntry;
  if (id == null && (ik == null || ledgerMatch == null)) throw new DomainError('invalid_input_provided', 'Identify the entry by id, or by ik with its ledger.');
  let ledgerId: string | undefined;
  if (ledgerMatch) {
    const ledger = await findLedger(sql, caller.workspaceId, requireLedgerMatch(ledgerMatch));
    if (!ledger) return null;
    ledgerId = ledger.id;
  }
  return (await findLedgerEntry(sql, caller.workspaceId, { id: id ?? undefined, ik: ik ?? undefined, ledgerId })) ?? null;
};
