import { groupCommit } from '../../db/groupCommit.js';
import { postLedgerEntries, type PostingOutcome } from '../../db/ledgerEntries.js';
import type { Sql } from '../../db/sql.js';
import { groupedEntries, postingGroupsRetried, postingGroupsWritten } from '../../observability/metrics.js';
import { plannedAccountsOf, postAlone } from './postEntry.js';
import { DEFAULT_POSTING_GROUPS, type PostingGroupOptions } from './postingGroupOptions.js';
import type { PreparedEntry } from './prepareEntry.js';

// Entries posted with group commit (src/db/groupCommit.ts): one set-based statement and one
// commit for the entries that arrive together, each answered as if posted alone.

export type PostingGroups = {
  /** Posts the entry with the next group; answers its own outcome. */
  post(prepared: PreparedEntry): Promise<PostingOutcome>;
};

export function postingGroups(sql: Sql, options: PostingGroupOptions = DEFAULT_POSTING_GROUPS): PostingGroups {
  const post = groupCommit<PreparedEntry, PostingOutcome>(
    { maxItems: options.maxEntries, maxInFlight: options.maxInFlight, flushAt: options.flushAt },
    {
      writeGroup: (prepared) =>
        postLedgerEntries(
          sql,
          prepared.map((entry) => entry.posting),
          plannedAccountsOf(prepared),
        ),
      writeAlone: (prepared) => postAlone(sql, prepared),
      // An entry whose ik is already in the group waits for the next one: posted after its
      // twin, it replays it (or posts, if the twin was refused).
      keyOf: ({ posting }) => `${posting.workspaceId}\u0000${posting.ledgerId}\u0000${posting.ik}`,
      onGroup: (size) => {
        postingGroupsWritten.inc();
        groupedEntries.inc(size);
      },
      onGroupFailed: () => postingGroupsRetried.inc(),
    },
  );
  return { post };
}
