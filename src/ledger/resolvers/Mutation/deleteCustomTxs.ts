import type { MutationResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { checkBatchSize, MAX_DELETE_TXS } from '../../../core/links.js';
import { lockTxs, markTxsDeleted } from '../../../db/externalTxs.js';
import { findLinksById } from '../../../db/links.js';
import { standingReconciliations } from '../../../db/reconciliations.js';
import { asMutationResult } from '../../mutationResult.js';

/**
 * Deletes transactions of custom links, all or none. A deleted transaction keeps answering by
 * id; deleting it again is a no-op. One that a standing entry reconciles is refused: reverse
 * the entry first, so ledger and external account keep telling the same story.
 */
export const deleteCustomTxs: NonNullable<MutationResolvers['deleteCustomTxs']> = (_parent, args, ctx) =>
  asMutationResult(ctx, 'deleteCustomTxs', async () => {
    checkBatchSize(args.txs.length, MAX_DELETE_TXS, 'transaction id');
    const ids = [...new Set(args.txs)];
    const workspaceId = ctx.caller.workspaceId;
    const deleted = await ctx.sql.begin(async (trx) => {
      const found = new Map((await lockTxs(trx, workspaceId, ids)).map((row) => [row.id, row]));
      const missing = ids.find((id) => !found.has(id));
      if (missing !== undefined)
        throw new DomainError('tx_not_found', `No transaction ${missing} exists in this workspace.`);
      const links = await findLinksById(trx, workspaceId, [...new Set([...found.values()].map((row) => row.linkId))]);
      const provider = links.find((link) => link.kind !== 'custom');
      if (provider)
        throw new DomainError(
          'invalid_input_provided',
          `Transactions of provider link ${provider.id} are synced by the provider and cannot be deleted.`,
        );
      const [reconciled] = await standingReconciliations(trx, workspaceId, ids);
      if (reconciled) {
        throw new DomainError(
          'tx_already_reconciled',
          `Transaction ${reconciled.txId} is reconciled by entry ${reconciled.entryId}; reverse that entry before deleting the transaction.`,
        );
      }
      const rows = new Map((await markTxsDeleted(trx, workspaceId, ids)).map((row) => [row.id, row]));
      return ids.map((id) => rows.get(id)!);
    });
    return { __typename: 'DeleteCustomTxsResult' as const, txs: deleted.map((row) => ({ tx: row })) };
  });
