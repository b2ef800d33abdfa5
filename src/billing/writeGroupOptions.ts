import type { GroupCommitOptions } from '../db/groupCommit.js';

// Group commit's settings for billing writes, apart from the machinery so that configuration
// can name them cheaply.

/**
 * As the server runs billing writes by default: groups of up to 32 calls (a statement's arrays
 * stay small), 4 in flight, and a group goes as soon as 16 calls wait: creates 7-9 % faster, syncs
 * the same (bench/results/billing-group-settings.md has the sweeps).
 */
export const DEFAULT_BILLING_GROUPS: GroupCommitOptions = { maxItems: 32, maxInFlight: 4, flushAt: 16 };
