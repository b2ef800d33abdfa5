import postgres from 'postgres';
import { DomainError } from '../core/errors.js';
import { databaseUnavailable } from './connectionErrors.js';
import { WRITE_ALONE } from './groupCommit.js';

/**
 * The one place where database errors become domain errors. Constraints are the guard of last
 * resort (races included); by name, each gets its typed answer. Values PostgreSQL cannot store
 * (a NUL character in text, say) are the caller's mistake, not a server failure.
 */
const CONSTRAINT_ERRORS: Record<string, () => DomainError> = {
  products_code_key: () => new DomainError('product_code_taken', 'A product with this code already exists.'),
  ledgers_workspace_id_schema_key_fkey: () => new DomainError('schema_not_found', 'No schema with this key.'),
  // A ledger or account deleted while a posting to it was in flight (a sandbox reset, restore or
  // workspace delete): the posting finds it gone, as it would have a moment later.
  ledger_accounts_ledger_fkey: () => new DomainError('ledger_not_found', 'The ledger no longer exists.'),
  ledger_account_balances_account_fkey: () =>
    new DomainError('ledger_account_not_found', 'An account of the entry no longer exists.'),
  ledger_accounts_parent_fkey: () =>
    new DomainError('ledger_account_not_found', 'The parent account no longer exists.'),
  // Two saves of one new snapshot name at once: the second finds it taken.
  sandbox_snapshots_pkey: () => new DomainError('snapshot_exists', 'A snapshot of this name was saved meanwhile.'),
};

/**
 * Refusals raised by our own SQL functions (src/db/functions/), each with its own SQLSTATE in
 * class TL, a class of our own; src/db/functions/README.md lists them with their details. They
 * are told apart by code here, never by message text.
 */
export type SqlRefusalName =
  | 'entry_condition_failed'
  | 'balance_out_of_range'
  | 'unknown_product'
  | 'unknown_user'
  | 'account_ik_taken'
  | 'unknown_account'
  | 'unknown_invoice'
  | 'over_allocated'
  | 'external_id_taken'
  | 'batch_refused'
  | 'version_conflict'
  | 'posting_target_changed';
export const SQL_REFUSALS: ReadonlyMap<string, SqlRefusalName> = new Map<string, SqlRefusalName>([
  ['TL001', 'entry_condition_failed'], // post_ledger_entry; detail: the failed condition's index
  ['TL002', 'balance_out_of_range'], // apply_balance_deltas: a balance would leave the Int96 range
  ['TL003', 'unknown_product'], // create_invoice; detail: the failing line items' indexes (JSON array)
  ['TL004', 'unknown_user'], // require_billing_users (create_invoice, sync_transaction); detail: the failing items' indexes (JSON array)
  ['TL005', 'account_ik_taken'], // create_planned_accounts; detail: the path that could not be created
  ['TL006', 'unknown_account'], // sync_transaction; detail: the external id the account has, or empty
  ['TL007', 'unknown_invoice'], // sync_transaction; detail: the failing allocations' indexes (JSON array)
  ['TL008', 'over_allocated'], // sync_transaction
  ['TL009', 'external_id_taken'], // sync_transaction: a concurrent sync took the external id first
  ['TL010', 'batch_refused'], // refuse_batch; detail: the refused entry's answer (JSON)
  ['TL011', 'version_conflict'], // change_invoice; detail: the version the invoice is at, or empty when it is gone
  ['TL012', 'posting_target_changed'], // require_current_ledger_revisions; detail: the stale ledgers' ids (JSON array)
]);

export type SqlRefusal = { name: SqlRefusalName; detail: string | undefined };

/** A call of a grouped write function that raised: its row carries the error (src/db/functions/billing_groups.sql). */
export type GroupedCallError = { error_code: string | null; error_detail: string | null };

/**
 * The rows of a grouped write, checked to answer every call once, in call order (`n`, 1-based),
 * before they are read positionally. The functions assert their row count before they commit;
 * this guards the order, which one call's answer given to another would otherwise hide.
 */
export function oneRowPerCall<Row extends { n: number }>(rows: readonly Row[], calls: number): readonly Row[] {
  if (rows.length !== calls || rows.some((row, index) => row.n !== index + 1)) {
    throw new Error(`A grouped write answered ${rows.length} rows for ${calls} calls, out of order or incomplete.`);
  }
  return rows;
}

/**
 * A grouped call's answer as the call alone would get it: its row's result, the outcome of the
 * refusal it raised, or WRITE_ALONE for any other error (a deadlock, say), to be retried alone.
 */
export function groupedCallAnswer<Row extends GroupedCallError, R>(
  row: Row,
  answer: (row: Row) => R,
  refused: (refusal: SqlRefusal | undefined) => R | undefined,
): R | typeof WRITE_ALONE {
  if (row.error_code === null) return answer(row);
  const name = SQL_REFUSALS.get(row.error_code);
  return refused(name ? { name, detail: row.error_detail || undefined } : undefined) ?? WRITE_ALONE;
}

/** The refusal a database error stands for, when one of our SQL functions raised it. */
export function sqlRefusal(error: unknown): SqlRefusal | undefined {
  if (!(error instanceof postgres.PostgresError)) return undefined;
  const name = SQL_REFUSALS.get(error.code);
  return name ? { name, detail: error.detail } : undefined;
}

// The refusals that become the same domain error wherever they are raised; the others are
// answered by their caller (unknown_product by the invoice create, entry_condition_failed as a
// row of post_ledger_entry_checked).
const REFUSAL_ERRORS: Partial<Record<SqlRefusalName, () => DomainError>> = {
  balance_out_of_range: () =>
    new DomainError(
      'invalid_input_provided',
      'The entry would take a balance outside the Int96 range (±(2^120 − 1)); nothing was posted.',
    ),
  account_ik_taken: () =>
    new DomainError(
      'invalid_input_provided',
      'An account the entry needs cannot be created: another account of the ledger holds its ik; nothing was posted.',
    ),
};

const UNSTORABLE_VALUE = new Set([
  '22021', // character_not_in_repertoire: NUL or invalid UTF-8 in text
  '22P05', // untranslatable_character
  '22001', // string_data_right_truncation
  '22003', // numeric_value_out_of_range
]);

export function domainErrorFromDatabase(error: unknown): DomainError | undefined {
  if (databaseUnavailable(error)) {
    return new DomainError('service_unavailable', 'The database cannot be reached right now; retry shortly.');
  }
  if (!(error instanceof postgres.PostgresError)) return undefined;
  if (error.code === '57014') {
    // query_canceled: statement_timeout, the request time budget; the transaction rolled back.
    return new DomainError(
      'deadline_exceeded',
      'The request took longer than the server allows and was cancelled; nothing was written.',
    );
  }
  const byConstraint = error.constraint_name ? CONSTRAINT_ERRORS[error.constraint_name] : undefined;
  if (byConstraint) return byConstraint();
  const refusal = sqlRefusal(error);
  const byRefusal = refusal && REFUSAL_ERRORS[refusal.name];
  if (byRefusal) return byRefusal();
  if (UNSTORABLE_VALUE.has(error.code)) {
    return new DomainError(
      'invalid_request',
      'A value in the request cannot be stored (text must not contain NUL characters).',
    );
  }
  return undefined;
}

/** The domain error a thrown value stands for, if it is an expected failure at all. */
export function expectedFailure(error: unknown): DomainError | undefined {
  return error instanceof DomainError ? error : domainErrorFromDatabase(error);
}
