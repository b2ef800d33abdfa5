import { newId } from '../../core/ids.js';
import { ensureUsers, findUsersById } from '../../db/billingUsers.js';
import type { Sql, Db } from '../../db/sql.js';
import {
  ensureBillingExternalAccount,
  existingInvoiceIds,
  findBillingExternalAccount,
  insertTransaction,
  type BillingExternalAccount,
  type TransactionToSync,
} from '../../db/transactions.js';
import type { RequestBody } from '../handlerTypes.js';
import { followInvoices } from '../paymentFlows/replan.js';
import { allocatedTotal, overAllocated, unknownAccount, unknownInvoices, unknownUsers } from './syncRefusals.js';
import type { SyncedTransaction } from './syncTransaction.js';

type Body = RequestBody<'syncTransaction'>;

/**
 * A sync whose allocations pay an invoice with payment flows: the transaction, its allocations and
 * the flows' payments move in one database transaction (several statements), with the same checks
 * in the same order as sync_transaction.
 */
export function syncFollowingFlows(
  sql: Sql,
  workspaceId: string,
  body: Body,
  toSync: TransactionToSync,
  taken: () => never,
): Promise<SyncedTransaction> {
  return sql.begin(async (trx) => {
    // The account and the allocations' references are resolved together (pipelined).
    const [account, allocations] = await Promise.all([
      resolveAccount(trx, workspaceId, body.account),
      resolveAllocations(trx, workspaceId, body),
    ]);
    const amount = BigInt(body.amount);
    if (allocatedTotal(body) > (amount < 0n ? -amount : amount)) throw overAllocated(body);
    const transaction = { ...toSync, accountId: account.id, allocations };
    // A concurrent sync of the same external id won: this one is its replay (or a reused key).
    const times = (await insertTransaction(trx, workspaceId, transaction)) ?? taken();
    // Payments of flows on these invoices complete with this transaction when it settles them.
    await followInvoices(
      trx,
      workspaceId,
      allocations.map((allocation) => allocation.invoiceId),
      times.created,
    );
    return { transaction, account, times };
  });
}

/** By id (must exist), by external id (created on first use), or both (must name one account). */
async function resolveAccount(db: Db, workspaceId: string, ref: Body['account']): Promise<BillingExternalAccount> {
  if (ref.id !== undefined) {
    const byId = await findBillingExternalAccount(db, workspaceId, { id: ref.id });
    if (!byId || (ref.external_id !== undefined && byId.externalId !== ref.external_id)) {
      throw unknownAccount(ref, byId?.externalId);
    }
    return byId;
  }
  return ensureBillingExternalAccount(db, workspaceId, ref.external_id!);
}

/** Invoices must exist and users given by id too; users given by external id are created. */
async function resolveAllocations(db: Db, workspaceId: string, body: Body) {
  const [invoices, usersById] = await Promise.all([
    existingInvoiceIds(
      db,
      workspaceId,
      body.allocations.map((allocation) => allocation.invoice_id),
    ),
    findUsersById(
      db,
      workspaceId,
      body.allocations.flatMap((allocation) => ('id' in allocation.user ? [allocation.user.id] : [])),
    ),
  ]);
  const indexesWhere = (failing: (allocation: Body['allocations'][number]) => boolean) =>
    body.allocations.flatMap((allocation, index) => (failing(allocation) ? [index] : []));
  const unknownInvoiceIndexes = indexesWhere((allocation) => !invoices.has(allocation.invoice_id));
  if (unknownInvoiceIndexes.length > 0) throw unknownInvoices(body, unknownInvoiceIndexes);
  const unknownUserIndexes = indexesWhere(
    (allocation) => 'id' in allocation.user && !usersById.has(allocation.user.id),
  );
  if (unknownUserIndexes.length > 0) throw unknownUsers(body, unknownUserIndexes);
  const usersByExternalId = await ensureUsers(
    db,
    workspaceId,
    body.allocations.flatMap((allocation) => ('external_id' in allocation.user ? [allocation.user.external_id] : [])),
  );
  return body.allocations.map((allocation) => {
    const user =
      'id' in allocation.user
        ? usersById.get(allocation.user.id)!
        : usersByExternalId.get(allocation.user.external_id)!;
    return {
      id: newId('alloc'),
      invoiceId: allocation.invoice_id,
      userId: user.id,
      userExternalId: user.externalId,
      type: allocation.type,
      amount: allocation.amount,
    };
  });
}
