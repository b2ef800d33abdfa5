import type { QueryResolvers } from '../../../../generated/ledger.js';
import { DomainError } from '../../../core/errors.js';
import { findTx } from '../../../db/externalTxs.js';
import { findExternalAccount } from '../../../db/links.js';

/**
 * By id (deleted transactions included; other fields given must agree), or the live transaction with an external id: in the
 * account `accountId`, or in the account with external id `externalAccountId` of link `linkId`.
 */
export const tx: NonNullable<QueryResolvers['tx']> = async (_parent, args, { sql, caller }) => {
  const { id, externalId, accountId, externalAccountId, linkId } = args.tx;
  const workspaceId = caller.workspaceId;
  if (id != null) {
    const row = await findTx(sql, workspaceId, { id });
    const account =
      row && (externalAccountId != null || linkId != null)
        ? await findExternalAccount(sql, workspaceId, { id: row.accountId })
        : undefined;
    const agrees =
      row &&
      (externalId == null || row.externalId === externalId) &&
      (accountId == null || row.accountId === accountId) &&
      (linkId == null || row.linkId === linkId) &&
      (externalAccountId == null || account?.externalId === externalAccountId);
    return agrees ? row : null;
  }
  if (externalId == null)
    throw new DomainError(
      'invalid_input_provided',
      'Identify the transaction by id, or by externalId with accountId, or with externalAccountId and linkId.',
    );
  if (accountId != null) return (await findTx(sql, workspaceId, { accountId, externalId })) ?? null;
  if (externalAccountId == null || linkId == null) {
    throw new DomainError('invalid_input_provided', 'externalId needs accountId, or externalAccountId with linkId.');
  }
  const account = await findExternalAccount(sql, workspaceId, { linkId, externalId: externalAccountId });
  return account ? ((await findTx(sql, workspaceId, { accountId: account.id, externalId })) ?? null) : null;
};
