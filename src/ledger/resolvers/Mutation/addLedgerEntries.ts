import type { MutationResolvers } from '../../../../generated/ledger.js';
import { MAX_LINES_PER_ENTRY } from '../../../core/entries.js';
import { DomainError } from '../../../core/errors.js';
import { findLedgerEntriesById, linesOfEntries, postedRows, type PostingOutcome } from '../../../db/ledgerEntries.js';
import { expectedFailure } from '../../../db/errors.js';
import { answeredFromPosting, checkOutcome, ledgerForEntry } from '../../entries/addEntry.js';
import type { GqlContext } from '../../context.js';
import { countEntriesWritten, timedPosting } from '../../entries/postingMetrics.js';
import { prepareEntry, type PreparedEntry } from '../../entries/prepareEntry.js';
import { asPostingMutationResult, preparingFrom, refuse } from '../../entries/staleTargets.js';

/** Lines across the whole batch, as the hosted service limits them. */
export const MAX_LINES_PER_BATCH = MAX_LINES_PER_ENTRY;

type EntryError = { __typename: 'AddLedgerEntryError'; ik: string; code: string; message: string; retryable: boolean };

const batchFailed = (errors: EntryError[]) => ({
  __typename: 'AddLedgerEntriesError' as const,
  code: 'ledger_entry_batch_operation_failed',
  message: `${errors.length} of the entries could not be added; none was posted.`,
  retryable: errors.every((error) => error.retryable),
  errors,
});

const entryError = (ik: string, error: unknown): EntryError => {
  const failure = expectedFailure(error);
  if (!failure) throw error;
  return {
    __typename: 'AddLedgerEntryError',
    ik,
    code: failure.code,
    message: failure.message,
    retryable: failure.retryable,
  };
};

/**
 * Posts several entries of one ledger atomically: each is prepared and checked on its own (a
 * batch with failing entries answers one error per entry), then all are posted in one
 * transaction. Idempotency is per entry: a retried batch reports each replay.
 */
export const addLedgerEntries: NonNullable<MutationResolvers['addLedgerEntries']> = (_parent, args, ctx) =>
  asPostingMutationResult(ctx, 'addLedgerEntries', async () => {
    const items = args.entries;
    if (items.length === 0) throw new DomainError('invalid_input_provided', 'A batch needs at least one entry.');
    const lineCount = items.reduce((total, item) => total + (item.entry.lines?.length ?? 0), 0);
    if (lineCount > MAX_LINES_PER_BATCH) {
      throw new DomainError(
        'ledger_entry_too_many_lines',
        `A batch may have at most ${MAX_LINES_PER_BATCH} lines in all; this one has ${lineCount}.`,
      );
    }
    const iks = new Set<string>();
    for (const item of items) {
      if (iks.has(item.ik))
        throw new DomainError('invalid_input_provided', `ik ${item.ik} appears twice in the batch.`);
      iks.add(item.ik);
    }
    const target = await ledgerForEntry(
      ctx,
      ctx.caller.workspaceId,
      items[0].entry.ledger,
      items.map((item) => item.entry),
    );
    for (const [index, item] of items.entries()) {
      const ledger = item.entry.ledger;
      if (
        !ledger ||
        (ledger.id != null && ledger.id !== target.ledger.id) ||
        (ledger.ik != null && ledger.ik !== target.ledger.ik)
      ) {
        throw new DomainError(
          'invalid_input_provided',
          `entries[${index}] targets a different ledger; all entries in a batch must target the same ledger.`,
        );
      }
    }

    const prepared: PreparedEntry[] = [];
    const errors: EntryError[] = [];
    for (const item of items) {
      try {
        prepared.push(
          await preparingFrom(target, () =>
            prepareEntry(ctx, target.ledger, target.schema, item.ik, item.entry, { prefetched: target.accounts }),
          ),
        );
      } catch (error) {
        errors.push(entryError(item.ik, error));
      }
    }
    const renderedLines = prepared.reduce((total, entry) => total + entry.posting.lines.length, 0);
    if (errors.length === 0 && renderedLines > MAX_LINES_PER_BATCH) {
      // Rendered from the schema version as held: confirmed fresh before it is answered.
      refuse(
        target,
        new DomainError(
          'ledger_entry_too_many_lines',
          `A batch may have at most ${MAX_LINES_PER_BATCH} lines in all; its entries render ${renderedLines}.`,
        ),
      );
    }
    if (errors.length > 0) return batchFailed(errors);

    const check = (outcome: PostingOutcome, index: number) => checkOutcome(prepared[index], outcome, items[index].ik);
    const result = await timedPosting(() => ctx.postings.postAll(prepared));
    if ('refused' in result) {
      try {
        check(result.outcome, result.refused);
      } catch (error) {
        return batchFailed([entryError(items[result.refused].ik, error)]);
      }
    }
    const outcomes = (result as { outcomes: PostingOutcome[] }).outcomes;
    countEntriesWritten(outcomes.filter((outcome) => 'replayed' in outcome && !outcome.replayed).length);
    return { __typename: 'AddLedgerEntriesResult' as const, results: await answers(ctx, prepared, outcomes) };
  });

/** Each entry's answer: built from its posting when this call wrote it, read back otherwise (replays). */
async function answers(ctx: GqlContext, prepared: readonly PreparedEntry[], outcomes: readonly PostingOutcome[]) {
  const fromPosting = outcomes.map((outcome, index) => answeredFromPosting(prepared[index], outcome));
  const readIds = outcomes.flatMap((outcome, index) =>
    fromPosting[index] || !('entryId' in outcome) ? [] : [outcome.entryId],
  );
  const workspaceId = prepared[0].posting.workspaceId;
  // A batch this call wrote reads nothing back (the planner once took 4.7 ms over an empty list).
  const [found, lines] =
    readIds.length > 0
      ? await Promise.all([
          findLedgerEntriesById(ctx.sql, workspaceId, readIds),
          linesOfEntries(ctx.sql, workspaceId, readIds),
        ])
      : [[], []];
  const entries = new Map(found.map((entry) => [entry.id, entry]));
  return outcomes.map((outcome, index) => {
    if (!('entryId' in outcome)) throw new Error('A refused entry has no answer in a written batch.');
    if (fromPosting[index]) {
      return {
        __typename: 'AddLedgerEntryResult' as const,
        ...postedRows(prepared[index].posting, outcome.created, outcome.position),
        isIkReplay: false,
      };
    }
    return {
      __typename: 'AddLedgerEntryResult' as const,
      entry: entries.get(outcome.entryId)!,
      lines: lines.filter((line) => line.entryId === outcome.entryId),
      isIkReplay: outcome.replayed,
    };
  });
}
