import { checkTagList } from '../../core/billingTags.js';
import { fingerprint } from '../../core/fingerprint.js';
import { sameFingerprint } from '../../core/idempotency.js';
import { newId } from '../../core/ids.js';
import { checkAmount } from '../../core/prices.js';
import { createOnce } from '../../db/createOnce.js';
import {
  allocationsOfTransactions,
  findTransactionByExternalId,
  type AccountRef,
  type AllocationToSync,
  type BillingExternalAccount,
  type NewTransaction,
  type TransactionRow,
  type TransactionToSync,
} from '../../db/transactions.js';
import type { Handler, RequestBody } from '../handlerTypes.js';
import { presentTransaction } from './present.js';
import { syncFollowingFlows } from './syncFollowingFlows.js';
import { overAllocated, unknownAccount, unknownInvoices, unknownUsers } from './syncRefusals.js';

type Body = RequestBody<'syncTransaction'>;

/** What a sync wrote, to answer from without reading it back. */
export type SyncedTransaction = {
  transaction: Omit<NewTransaction, 'allocations'> & {
    allocations: (NewTransaction['allocations'][number] & { userExternalId: string })[];
  };
  account: BillingExternalAccount;
  times: { posted: Date; created: Date };
};

/**
 * Records an external transaction with its allocations, idempotent on `external_id`: an
 * identical body answers the stored transaction (200), another body 409, before any other check.
 * One statement (sync_transaction, with group commit) unless an invoice paid has payment flows to move on.
 */
export const syncTransaction: Handler<'syncTransaction'> = async ({ sql, writes, caller, body }) => {
  const workspaceId = caller.workspaceId;
  checkAmount(body.amount, '/body/amount');
  body.allocations.forEach((allocation, index) => checkAmount(allocation.amount, `/body/allocations/${index}/amount`));
  const toSync: TransactionToSync = {
    id: newId('txn'),
    externalId: body.external_id,
    amount: body.amount,
    currency: body.currency,
    posted: body.posted,
    tags: checkTagList(body.tags, '/body/tags'),
    allocated: body.allocations.reduce((sum, allocation) => sum + BigInt(allocation.amount), 0n).toString(),
    requestHash: fingerprint(body),
  };

  const result = await createOnce({
    key: { field: 'external_id', value: body.external_id, scope: 'in this workspace' },
    find: () => findTransactionByExternalId(sql, workspaceId, body.external_id),
    same: sameFingerprint(toSync.requestHash),
    // sync_transaction looks the external id up first, so a new sync is one round trip.
    lookFirst: false,
    create: async (taken): Promise<SyncedTransaction> => {
      const allocations = body.allocations.map(allocationToSync);
      const synced = await writes.syncTransaction({
        workspaceId,
        transaction: toSync,
        account: accountRef(body.account),
        allocations,
      });
      switch (synced.outcome) {
        case 'taken':
          return taken();
        case 'follow':
          return syncFollowingFlows(sql, workspaceId, body, toSync, taken);
        case 'unknown_account':
          throw unknownAccount(body.account, synced.externalIdFound);
        case 'unknown_invoice':
          throw unknownInvoices(body, synced.indexes);
        case 'unknown_user':
          throw unknownUsers(body, synced.indexes);
        case 'over_allocated':
          throw overAllocated(body);
        case 'created': {
          const userOf = (allocation: AllocationToSync) =>
            synced.users[
              allocation.user_id !== null ? `id:${allocation.user_id}` : `ext:${allocation.user_external_id}`
            ];
          return {
            transaction: {
              ...toSync,
              accountId: synced.account.id,
              allocations: allocations.map((allocation) => ({
                id: allocation.id,
                invoiceId: allocation.invoice_id,
                userId: userOf(allocation)[0],
                userExternalId: userOf(allocation)[1],
                type: allocation.type,
                amount: allocation.amount,
              })),
            },
            account: synced.account,
            times: { posted: synced.posted, created: synced.created },
          };
        }
      }
    },
  });
  if (result.replayed) {
    const stored = result.row;
    return {
      status: 200 as const,
      body: { data: presentTransaction(stored, await allocationsOfTransactions(sql, workspaceId, [stored.id])) },
    };
  }
  // Answered from what was written, without reading it back.
  const { transaction, account, times } = result.row;
  const row: TransactionRow = {
    ...transaction,
    accountExternalId: account.externalId,
    posted: times.posted,
    created: times.created,
  };
  return {
    status: 201 as const,
    body: {
      data: presentTransaction(
        row,
        transaction.allocations.map((allocation, index) => ({
          ...allocation,
          transactionId: transaction.id,
          transactionExternalId: transaction.externalId,
          position: index + 1,
          posted: times.posted,
        })),
      ),
    },
  };
};

function accountRef(ref: Body['account']): AccountRef {
  if (ref.id !== undefined)
    return { id: ref.id, ...(ref.external_id !== undefined ? { external_id: ref.external_id } : {}) };
  return { external_id: ref.external_id!, new_id: newId('ext_account') };
}

function allocationToSync(allocation: Body['allocations'][number], index: number): AllocationToSync {
  return {
    id: newId('alloc'),
    position: index + 1,
    invoice_id: allocation.invoice_id,
    user_id: 'id' in allocation.user ? allocation.user.id : null,
    user_external_id: 'external_id' in allocation.user ? allocation.user.external_id : null,
    new_user_id: newId('user'),
    type: allocation.type,
    amount: allocation.amount,
  };
}
