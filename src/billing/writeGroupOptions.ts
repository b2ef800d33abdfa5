import type { GroupCommitOptions } from '../db/groupCommit.js';

// Group commit's settings for billing writes, apart from the machinery so that configuration
// can name them cheaply.

/**
 * As the server runs billing writes by default: groups of up to 32 calls (a statement's arrays
 * stay small), 4 in flight. The sweeps in bench/results/billing-group-settings.md found no better.
 */
export const DEFAULT_BILLING_GROUPS: GroupCommitOptions = { maxItems: 32, maxInFlight: 4 };
