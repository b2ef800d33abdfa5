import type { components } from '../../../generated/billing.js';
import type { AllocationRow, TransactionRow } from '../../db/transactions.js';

export type Transaction = components['schemas']['Transaction'];

/** `unallocated_amount` has the amount's sign and the magnitude |amount| − Σ allocations. */
export function unallocatedAmount(amount: string, allocated: string): string {
  const value = BigInt(amount);
  const rest = (value < 0n ? -value : value) - BigInt(allocated);
  return (value < 0n ? -rest : rest).toString();
}

export function presentTransaction(row: TransactionRow, allocations: readonly AllocationRow[]): Transaction {
  return {
    id: row.id,
    account: { id: row.accountId, external_id: row.accountExternalId },
    allocations: allocations.map((allocation) => ({
      id: allocation.id,
      amount: allocation.amount,
      invoice_id: allocation.invoiceId,
      type: allocation.type,
      user: { id: allocation.userId, external_id: allocation.userExternalId },
    })),
    amount: row.amount,
    created: row.created.toISOString(),
    currency: row.currency,
    external_id: row.externalId,
    posted: row.posted.toISOString(),
    tags: row.tags,
    unallocated_amount: unallocatedAmount(row.amount, row.allocated),
    version: 1,
  };
}
