// Group commit's settings, apart from its machinery so that configuration can name them cheaply.

export type PostingGroupOptions = {
  /** Entries in one group at most; 1 posts each entry in its own commit, without the queue. */
  maxEntries: number;
  /** Groups being written at once; the next group forms while they are. */
  maxInFlight: number;
  /** With this many entries waiting, a group goes at once (see GroupCommitOptions.flushAt). */
  flushAt?: number;
};

/** Group commit as the server runs it by default: set-based groups outran one entry per commit by 1.2-1.3× (bench/results/ledger-post.md). */
export const GROUP_COMMIT: PostingGroupOptions = { maxEntries: 64, maxInFlight: 4 };
export const DEFAULT_POSTING_GROUPS: PostingGroupOptions = GROUP_COMMIT;
