// Group commit's settings, apart from its machinery so that configuration can name them cheaply.

export type PostingGroupOptions = {
  /** Entries in one group at most; 1 posts each entry in its own commit, without the queue. */
  maxEntries: number;
  /** Groups being written at once; the next group forms while they are. */
  maxInFlight: number;
  /** With this many entries waiting, a group goes at once (see GroupCommitOptions.flushAt). */
  flushAt?: number;
};

/** Group commit as the server runs it by default: 2 groups in flight measured 1-6 % faster than 4, with less PostgreSQL CPU an entry, in every posting phase (bench/results/ledger-post-settings.md, 2026-11-29). */
export const GROUP_COMMIT: PostingGroupOptions = { maxEntries: 64, maxInFlight: 2 };
export const DEFAULT_POSTING_GROUPS: PostingGroupOptions = GROUP_COMMIT;
