import type { LedgerAccountMatchInput } from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import { findLedgerAccount, type LedgerAccountRow } from '../../db/ledgerAccounts.js';
import { findLedger } from '../../db/ledgers.js';
import type { Db } from '../../db/sql.js';
import { requireLedgerMatch } from '../ledgerMatch.js';

/** The account a LedgerAccountMatchInput names: by id, or by path or ik within a ledger (every key given must match). */
export async function findAccountByMatch(
  db: Db,
  workspaceId: string,
  match: LedgerAccountMatchInput,
): Promise<LedgerAccountRow | undefined> {
  if (match.id == null && match.path == null && match.ik == null) {
    throw new DomainError('invalid_input_provided', 'Identify the account by id, or by path or ik with its ledger.');
  }
  let ledgerId: string | undefined;
  if (match.ledger) {
    const ledger = await findLedger(db, workspaceId, requireLedgerMatch(match.ledger));
    if (!ledger) return undefined;
    ledgerId = ledger.id;
  } else if (match.id == null) {
    throw new DomainError('invalid_input_provided', 'An account path or ik needs its ledger.');
  }
  return findLedgerAccount(db, workspaceId, {
    id: match.id ?? undefined,
    path: match.path ?? undefined,
    ik: match.ik ?? undefined,
    ledgerId,
  });
}
