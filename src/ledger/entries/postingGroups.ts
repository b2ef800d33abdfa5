import { groupCommit, WRITE_ALONE } from '../../db/groupCommit.js';
import {
  postLedgerEntries,
  postLedgerEntriesAtomically,
  type BatchOutcome,
  type PostingOutcome,
} from '../../db/ledgerEntries.js';
import type { Sql } from '../../db/sql.js';
import { groupedEntries, postingGroupsRetried, postingGroupsWritten } from '../../observability/metrics.js';
import { groupable, plannedAccountsOf, postAll, postAlone } from './postEntry.js';
import { DEFAULT_POSTING_GROUPS, type PostingGroupOptions } from './postingGroupOptions.js';
import type { PreparedEntry } from './prepareEntry.js';

// Entries posted with group commit (src/db/groupCommit.ts): one set-based statement and one
// commit for the entries that arrive together, each answered as if posted alone. Batches
// (addLedgerEntries) are grouped with each other, each all or nothing.

export type PostingGroups = {
  /** Posts the entry with the next group; answers its own outcome. */
  post(prepared: PreparedEntry): Promise<PostingOutcome>;
  /** Posts every entry of the batch or none (see postAll), with the next group of batches. */
  postAll(prepared: readonly PreparedEntry[]): Promise<BatchOutcome>;
};

/** An entry's ik, as group commit keys it: an entry never shares a group with its twin. */
const ikKey = ({ posting }: PreparedEntry) => `${posting.workspaceId}\u0000${posting.ledgerId}\u0000${posting.ik}`;

export function postingGroups(sql: Sql, options: PostingGroupOptions = DEFAULT_POSTING_GROUPS): PostingGroups {
  const commonSteps = {
    onGroup: (size: number) => {
      postingGroupsWritten.inc();
      groupedEntries.inc(size);
    },
    onGroupFailed: () => postingGroupsRetried.inc(),
  };
  const settings = { maxItems: options.maxEntries, maxInFlight: options.maxInFlight, flushAt: options.flushAt };

  const post = groupCommit<PreparedEntry, PostingOutcome>(settings, {
    writeGroup: (prepared) =>
      postLedgerEntries(
        sql,
        prepared.map((entry) => entry.posting),
        plannedAccountsOf(prepared),
      ),
    writeAlone: (prepared) => postAlone(sql, prepared),
    // An entry whose ik is already in the group waits for the next one: posted after its
    // twin, it replays it (or posts, if the twin was refused).
    keysOf: (prepared) => [ikKey(prepared)],
    ...commonSteps,
  });

  const postBatch = groupCommit<readonly PreparedEntry[], BatchOutcome>(settings, {
    writeGroup: (batches) => postBatchesAtomically(sql, batches),
    writeAlone: (batch) => postAll(sql, batch),
    keysOf: (batch) => batch.map(ikKey),
    sizeOf: (batch) => batch.length,
    ...commonSteps,
  });

  return {
    post,
    // Batches that bound a total balance post in a transaction of their own.
    postAll: (prepared) => (prepared.every(groupable) ? postBatch(prepared) : postAll(sql, prepared)),
  };
}

/**
 * Posts several batches as one all-or-nothing statement and commit. Written whole, each batch
 * is answered its entries' outcomes, as if posted alone in this order; when any entry would be
 * refused, nothing is written and each batch is posted alone, to be answered its own refusal.
 */
async function postBatchesAtomically(
  sql: Sql,
  batches: readonly (readonly PreparedEntry[])[],
): Promise<(BatchOutcome | typeof WRITE_ALONE)[]> {
  const entries = batches.flat();
  const posted = await postLedgerEntriesAtomically(
    sql,
    entries.map((entry) => entry.posting),
    plannedAccountsOf(entries),
  );
  if ('refused' in posted) return batches.map(() => WRITE_ALONE);
  let first = 0;
  return batches.map((batch) => {
    const outcomes = posted.outcomes.slice(first, first + batch.length);
    first += batch.length;
    return { outcomes };
  });
}
