// Group commit's settings, apart from its machinery so that configuration can name them cheaply.

export type PostingGroupOptions = {
  /** Entries in one group at most; 1 posts each entry in its own commit, without the queue. */
  maxEntries: number;
  /** Groups being written at once; the next group forms while they are. */
  maxInFlight: number;
};

// Off by default (groups of one post as before, without the queue): on this 2-core machine group
// commit measured slower than one entry per commit (bench/results/ledger-post.md).
export const DEFAULT_POSTING_GROUPS: PostingGroupOptions = { maxEntries: 1, maxInFlight: 4 };
/** What `POSTING_GROUP_MAX_ENTRIES=64` turns on; the tests of group commit use it. */
export const GROUP_COMMIT: PostingGroupOptions = { maxEntries: 64, maxInFlight: 4 };
