import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { findLedger, softDeleteLedger } from '../../../db/ledgers.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';
import { asMutationResult } from '../../mutationResult.js';

/** Deleting hides the ledger and, after a grace period, frees its ik; its rows are kept. */
export const deleteLedger: NonNullable<MutationResolvers['deleteLedger']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'deleteLedger', async () => {
    const workspaceId = ctx.caller.workspaceId;
    const found = await findLedger(ctx.sql, workspaceId, requireLedgerMatch(args.ledger));
    if (!found || !(await softDeleteLedger(ctx.sql, workspaceId, found.id))) {
      throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
    }
    return { __typename: 'DeleteLedgerResult' as const, success: true };
  });
