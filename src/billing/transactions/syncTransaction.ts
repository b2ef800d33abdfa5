import { checkTagList } from '../../core/billingTags.js';
import { DomainError, type Violation } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { sameFingerprint } from '../../core/idempotency.js';
import { newId } from '../../core/ids.js';
import { checkAmount } from '../../core/prices.js';
import { ensureUsers, findUsersById } from '../../db/billingUsers.js';
import { createOnce } from '../../db/createOnce.js';
import type { Db } from '../../db/sql.js';
import {
  allocationsOfTransactions,
  ensureBillingExternalAccount,
  existingInvoiceIds,
  findBillingExternalAccount,
  findTransactionByExternalId,
  insertTransaction,
  type BillingExternalAccount,
  type TransactionRow,
} from '../../db/transactions.js';
import type { Handler, RequestBody } from '../handlerTypes.js';
import { followInvoices } from '../paymentFlows/replan.js';
import { presentTransaction } from './present.js';

type Body = RequestBody<'syncTransaction'>;

/**
 * Records an external transaction with its allocations, idempotent on `external_id`: an
 * identical body answers the stored transaction (200), another body 409, before any other check.
 */
export const syncTransaction: Handler<'syncTransaction'> = async ({ sql, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const amount = checkAmount(body.amount, '/body/amount');
  body.allocations.forEach((allocation, index) => checkAmount(allocation.amount, `/body/allocations/${index}/amount`));
  const tags = checkTagList(body.tags, '/body/tags');
  const requestHash = fingerprint(body);

  const result = await createOnce({
    key: { field: 'external_id', value: body.external_id, scope: 'in this workspace' },
    find: () => findTransactionByExternalId(sql, workspaceId, body.external_id),
    same: sameFingerprint(requestHash),
    create: (taken) =>
      sql.begin(async (trx) => {
        // The account and the allocations' references are resolved together (pipelined).
        const [account, allocations] = await Promise.all([
          resolveAccount(trx, workspaceId, body.account),
          resolveAllocations(trx, workspaceId, body),
        ]);
        const allocated = body.allocations.reduce((sum, allocation) => sum + BigInt(allocation.amount), 0n);
        const magnitude = amount < 0n ? -amount : amount;
        if (allocated > magnitude) {
          throw new DomainError(
            'over_allocated',
            `Allocations total ${allocated} but the transaction amount is ${body.amount}.`,
            {
              violations: [
                {
                  pointer: '/body/allocations',
                  message: `allocations total ${allocated} exceeds |amount| ${magnitude}`,
                },
              ],
            },
          );
        }
        const transaction = {
          id: newId('txn'),
          externalId: body.external_id,
          accountId: account.id,
          amount: body.amount,
          currency: body.currency,
          posted: body.posted,
          tags,
          allocated: allocated.toString(),
          requestHash,
          allocations,
        };
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
      }),
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

/** By id (must exist), by external id (created on first use), or both (must name one account). */
async function resolveAccount(db: Db, workspaceId: string, ref: Body['account']): Promise<BillingExternalAccount> {
  if (ref.id !== undefined) {
    const byId = await findBillingExternalAccount(db, workspaceId, { id: ref.id });
    if (!byId || (ref.external_id !== undefined && byId.externalId !== ref.external_id)) {
      const message = byId
        ? `external account ${ref.id} has external id ${byId.externalId}, not ${ref.external_id}`
        : `external account ${ref.id} does not exist`;
      throw new DomainError(
        'unknown_account',
        `External account ${ref.id} ${byId ? 'does not match the external id given' : 'does not exist'}.`,
        {
          violations: [{ pointer: '/body/account/id', message }],
        },
      );
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
  const unknownInvoices: Violation[] = body.allocations.flatMap((allocation, index) =>
    invoices.has(allocation.invoice_id)
      ? []
      : [
          {
            pointer: `/body/allocations/${index}/invoice_id`,
            message: `invoice ${allocation.invoice_id} does not exist`,
          },
        ],
  );
  if (unknownInvoices.length > 0) {
    const first = body.allocations.find((allocation) => !invoices.has(allocation.invoice_id))!;
    throw new DomainError('unknown_invoice', `Invoice ${first.invoice_id} does not exist.`, {
      violations: unknownInvoices,
    });
  }
  const unknownUsers: Violation[] = body.allocations.flatMap((allocation, index) =>
    'id' in allocation.user && !usersById.has(allocation.user.id)
      ? [{ pointer: `/body/allocations/${index}/user/id`, message: `user ${allocation.user.id} does not exist` }]
      : [],
  );
  if (unknownUsers.length > 0)
    throw new DomainError('unknown_user', 'An allocation names a user id that does not exist.', {
      violations: unknownUsers,
    });
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
