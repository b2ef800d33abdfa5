import type { LedgerAccountRow } from './ledgerAccounts.js';
import { ledgerColumns, type LedgerMatch, type LedgerRow } from './ledgers.js';
import type { Db } from './sql.js';

/**
 * A ledger as entries are prepared on it: its schema version's content hash, and its posting
 * revision (a bigint, as text), which a posting states so that it is refused once the ledger or
 * one of its accounts has changed (functions/posting.sql, require_current_ledger_revisions).
 */
export type TargetLedger = LedgerRow & { schemaContentHash: string | null; postingRevision: string };

/** `held`: answered from what this process holds (postingTargetCache.ts), not read just now. */
export type PostingTarget = { ledger: TargetLedger; accounts: LedgerAccountRow[]; held?: boolean };

/** An entry's ledger and the accounts its lines and conditions name, by id, path or ik. */
export type TargetQuery = {
  workspaceId: string;
  match: LedgerMatch;
  ids: readonly string[];
  paths: readonly string[];
  iks: readonly string[];
};

/**
 * The posting targets of several entries in one round trip (functions/posting_target.sql):
 * answers one per query, in order; undefined where no live ledger matches.
 */
export async function findPostingTargets(
  db: Db,
  queries: readonly TargetQuery[],
): Promise<(PostingTarget | undefined)[]> {
  const refs = queries.flatMap((query, index) => [
    ...query.ids.map((id) => [index + 1, id, null, null] as const),
    ...query.paths.map((path) => [index + 1, null, path, null] as const),
    ...query.iks.map((ik) => [index + 1, null, null, ik] as const),
  ]);
  const rows = await db<
    (TargetLedger & {
      request: number;
      accounts: (Omit<LedgerAccountRow, 'created'> & { created: string })[];
    })[]
  >`
    select request, ${ledgerColumns(db)}, schema_content_hash as "schemaContentHash",
           posting_revision::text as "postingRevision", accounts
    from find_posting_targets(
      ${queries.map((query) => query.workspaceId)}::text[], ${queries.map((query) => query.match.id ?? null)}::text[],
      ${queries.map((query) => query.match.ik ?? null)}::text[], ${refs.map((ref) => ref[0])}::integer[],
      ${refs.map((ref) => ref[1])}::text[], ${refs.map((ref) => ref[2])}::text[], ${refs.map((ref) => ref[3])}::text[])`;
  const targets: (PostingTarget | undefined)[] = queries.map(() => undefined);
  for (const { request, accounts, ...ledger } of rows) {
    targets[request - 1] = {
      ledger,
      accounts: accounts.map((account) => ({ ...account, created: new Date(account.created) })),
    };
  }
  return targets;
}
