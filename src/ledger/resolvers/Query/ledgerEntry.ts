import type { LedgerEntryMatchInput, QueryResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { findLedgerEntry, type LedgerEntryRow } from '../../../db/ledgerEntries.js';
import { findLedger } from '../../../db/ledgers.js';
import type { Db } from '../../../db/sql.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';

/** The entry a match names: by id, or by ik within a ledger (the newest of its chain). */
export async function findEntryByMatch(
  db: Db,
  workspaceId: string,
  match: LedgerEntryMatchInput,
): Promise<LedgerEntryRow | undefined> {
  const { id, ik, ledger: ledgerMatch } = match;
  if (id == null && (ik == null || ledgerMatch == null))
    throw new DomainError('invalid_input_provided', 'Identify the entry by id, or by ik with its ledger.');
  let ledgerId: string | undefined;
  if (ledgerMatch) {
    const ledger = await findLedger(db, workspaceId, requireLedgerMatch(ledgerMatch));
    if (!ledger) return undefined;
    ledgerId = ledger.id;
  }
  return findLedgerEntry(db, workspaceId, { id: id ?? undefined, ik: ik ?? undefined, ledgerId });
}

/** By id, or by ik within a ledger; null when nothing matches. */
export const ledgerEntry: NonNullable<QueryResolvers['ledgerEntry']> = async (_parent, args, { sql, caller }) =>
  (await findEntryByMatch(sql, caller.workspaceId, args.ledgerEntry)) ?? null;
