import { DomainError } from '../core/errors.js';
import type { LedgerMatch } from '../db/ledgers.js';

/** A LedgerMatchInput must name the ledger by id, by ik, or by both (then both must match). */
export function requireLedgerMatch(match: LedgerMatch): LedgerMatch {
  if (match.id == null && match.ik == null) {
    throw new DomainError('invalid_input_provided', 'Identify the ledger by id or by ik.');
  }
  return match;
}
