import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { findLedger, renameLedger } from '../../../db/ledgers.js';
import { requireLedgerMatch } from '../../ledgerMatch.js';
import { asMutationResult } from '../../mutationResult.js';

export const updateLedger: NonNullable<MutationResolvers['updateLedger']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'updateLedger', async () => {
    const workspaceId = ctx.caller.workspaceId;
    const found = await findLedger(ctx.sql, workspaceId, requireLedgerMatch(args.ledger));
    if (!found) throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
    const { name } = args.update;
    if (name != null && name.trim() === '')
      throw new DomainError('invalid_input_provided', 'A ledger name cannot be empty.');
    const ledger = name == null ? found : await renameLedger(ctx.sql, workspaceId, found.id, name);
    if (!ledger) throw new DomainError('ledger_not_found', 'The ledger was deleted meanwhile.');
    return { __typename: 'UpdateLedgerResult' as const, ledger };
  });
