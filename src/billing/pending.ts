import type { OperationId } from './handler.js';

/**
 * Billing operations of the contract that this version of Tally does not serve yet: the one
 * visible list, shrinking as features land. They answer 501 `not_implemented`. A contract test
 * checks that this list and handlers.ts together cover the spec exactly.
 */
export const PENDING_OPERATIONS: readonly OperationId[] = [];
