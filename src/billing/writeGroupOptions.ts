import type { GroupCommitOptions } from '../db/groupCommit.js';

// Group commit's settings for billing writes, apart from the machinery so that configuration
// can name them cheaply.

/**
 * As the server runs billing writes by default. Each call of a group is a subtransaction; 32
 * stays below the 64 a backend tracks before other backends' snapshots slow down.
 */
export const DEFAULT_BILLING_GROUPS: GroupCommitOptions = { maxItems: 32, maxInFlight: 4 };
