import { groupBy } from '../../core/grouping.js';
import { allocationsOfTransactions, listTransactionRows } from '../../db/transactions.js';
import type { Handler } from '../handlerTypes.js';
import { presentTransaction } from './present.js';

/** Transactions by posted time, optionally of one account (unknown: empty) and one reconciliation status. */
export const listTransactions: Handler<'listTransactions'> = async ({ sql, caller, query }) => {
  const rows = await listTransactionRows(sql, caller.workspaceId, {
    accountRef: query.account,
    reconciliation: query.reconciliation_status,
  });
  const allocations = await allocationsOfTransactions(
    sql,
    caller.workspaceId,
    rows.map((row) => row.id),
  );
  const byTransaction = groupBy(allocations, (allocation) => allocation.transactionId);
  return { status: 200, body: { data: rows.map((row) => presentTransaction(row, byTransaction.get(row.id) ?? [])) } };
};
