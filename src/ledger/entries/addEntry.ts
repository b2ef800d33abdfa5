import type { LedgerEntryInput, LedgerMatchInput } from '../../../generated/ledger.js';
import { DomainError } from '../../core/errors.js';
import { keyReused } from '../../core/idempotency.js';
import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import { findLedgerEntry, linesOfEntry, postedRows, type PostingOutcome } from '../../db/ledgerEntries.js';
import type { TargetLedger } from '../../db/postingLookup.js';
import type { GqlContext } from '../context.js';
import { requireLedgerMatch } from '../ledgerMatch.js';
import { loadSchemaVersion, type LoadedSchema } from '../schemas/schemaVersions.js';
import { countEntriesWritten, timedPosting } from './postingMetrics.js';
import { groupable, ikHeldByAnother, postAlone } from './postEntry.js';
import { prepareEntry, type PreparedEntry } from './prepareEntry.js';
import { preparingFrom } from './staleTargets.js';
import type { PostingContext } from './postingTargets.js';

// The steps of adding one entry, shared by addLedgerEntry and addLedgerEntries. A fresh entry
// with explicit lines costs two statements, each shared with the entries that arrived with it:
// the ledger with its accounts (postingTargets.ts), then the posting (postingGroups.ts).

/** `held`: read from what this process holds; a refusal decided from it is confirmed from fresh targets (staleTargets.ts). */
export type EntryLedger = {
  ledger: TargetLedger;
  schema: LoadedSchema | undefined;
  accounts?: LedgerAccountRow[];
  held: boolean;
};

/**
 * The entry's ledger, the parsed schema version it is on, and the accounts the entry names
 * explicitly (typed entries name theirs only once rendered).
 */
export async function ledgerForEntry(
  ctx: PostingContext,
  workspaceId: string,
  match: LedgerMatchInput | null | undefined,
  entries: readonly LedgerEntryInput[] = [],
): Promise<EntryLedger> {
  if (!match) throw new DomainError('invalid_input_provided', 'Name the ledger of the entry (entry.ledger).');
  const refs = entries.flatMap((entry) => [
    ...(entry.lines ?? []).map((line) => line.account),
    ...(entry.conditions ?? []).map((condition) => condition.account),
  ]);
  const ids = refs.flatMap((ref) => (ref.id != null ? [ref.id] : []));
  const paths = refs.flatMap((ref) => (ref.id == null && ref.path != null ? [ref.path] : []));
  const iks = refs.flatMap((ref) => (ref.id == null && ref.path == null && ref.ik != null ? [ref.ik] : []));
  const target = await ctx.postingTargets.find({ workspaceId, match: requireLedgerMatch(match), ids, paths, iks });
  if (!target) throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
  const { ledger, accounts } = target;
  const held = target.held ?? false;
  // A held ledger may name a schema version since deleted with its ledger: confirmed fresh.
  const schema = await preparingFrom({ ledger, held }, async () =>
    ledger.schemaKey && ledger.schemaVersion
      ? loadSchemaVersion(
          ctx.sql,
          workspaceId,
          ledger.schemaKey,
          ledger.schemaVersion,
          ledger.schemaContentHash ?? undefined,
        )
      : undefined,
  );
  return { ledger, schema, accounts, held };
}

/** Throws the typed error an outcome stands for; answers a replay's ik clash. */
export function checkOutcome(
  prepared: PreparedEntry,
  outcome: PostingOutcome,
  ik: string,
): asserts outcome is Exclude<PostingOutcome, { failedCondition: number }> {
  if ('failedCondition' in outcome) {
    const condition = prepared.posting.conditions[outcome.failedCondition];
    const account = prepared.accounts.get(condition.accountId)!;
    throw new DomainError(
      'entry_condition_failed',
      `Condition ${outcome.failedCondition} on ${account.path} (${condition.currency}) does not hold; nothing was posted.`,
      { account: account.path, currency: condition.currency, condition: outcome.failedCondition },
    );
  }
  // post_ledger_entry creates once in SQL, answering the entry that holds the ik: it must be this request.
  if (ikHeldByAnother(prepared, outcome)) {
    throw keyReused({ field: 'ik', value: ik, scope: 'in this ledger' });
  }
}

/** Whether a posting's answer can be built from what the server sent: it wrote it, naming the accounts it planned. */
export function answeredFromPosting(prepared: PreparedEntry, outcome: PostingOutcome): boolean {
  if ('failedCondition' in outcome || outcome.replayed || outcome.remapped) return false;
  // Total-bound entries create their accounts apart; the remapped flag comes from the group statement only.
  return groupable(prepared) || prepared.newAccounts.length === 0;
}

export async function addEntry(ctx: GqlContext, target: EntryLedger, ik: string, input: LedgerEntryInput) {
  const prepared = await preparingFrom(target, () =>
    prepareEntry(ctx, target.ledger, target.schema, ik, input, { prefetched: target.accounts }),
  );
  const outcome = await timedPosting(() =>
    groupable(prepared) ? ctx.postings.post(prepared) : postAlone(ctx.sql, prepared),
  );
  checkOutcome(prepared, outcome, ik);
  countEntriesWritten(outcome.replayed ? 0 : 1);
  // A fresh posting is answered from what was just written (unless another posting created an
  // account it planned, which its lines then name); a replay reads the original.
  if (answeredFromPosting(prepared, outcome)) {
    return {
      __typename: 'AddLedgerEntryResult' as const,
      ...postedRows(prepared.posting, outcome.created, outcome.position),
      isIkReplay: false,
    };
  }
  const workspaceId = target.ledger.workspaceId;
  const entry = (await findLedgerEntry(ctx.sql, workspaceId, { id: outcome.entryId }))!;
  return {
    __typename: 'AddLedgerEntryResult' as const,
    entry,
    lines: await linesOfEntry(ctx.sql, workspaceId, entry.id),
    isIkReplay: outcome.replayed,
  };
}
