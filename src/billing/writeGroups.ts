import { groupCommit, type GroupCommitOptions } from '../db/groupCommit.js';
import {
  createInvoiceRow,
  createInvoiceRows,
  type CreateInvoiceOutcome,
  type InvoiceCreateCall,
} from '../db/invoices.js';
import type { Sql } from '../db/sql.js';
import { syncTransactionRow, syncTransactionRows, type SyncCall, type SyncOutcome } from '../db/transactions.js';
import { DEFAULT_BILLING_GROUPS } from './writeGroupOptions.js';
import { billingGroupedWrites, billingWriteGroups, billingWriteGroupsRetried } from '../observability/metrics.js';

// The billing writes that concurrent clients send most, written with group commit
// (src/db/groupCommit.ts): the syncs, and the creates, that arrive together share one statement
// and one commit, each answered as if written alone.

export type BillingWrites = {
  syncTransaction(call: SyncCall): Promise<SyncOutcome>;
  createInvoice(call: InvoiceCreateCall): Promise<CreateInvoiceOutcome>;
};

export function billingWrites(sql: Sql, options: GroupCommitOptions = DEFAULT_BILLING_GROUPS): BillingWrites {
  const commonSteps = (operation: string) => ({
    onGroup: (size: number) => {
      billingWriteGroups.inc({ operation });
      billingGroupedWrites.inc({ operation }, size);
    },
    onGroupFailed: () => billingWriteGroupsRetried.inc({ operation }),
  });
  return {
    // Syncs of one external id, or creates of one invoice id, never share a group: the later
    // one sees the earlier one committed, and replays it or is refused, as it would alone.
    syncTransaction: groupCommit<SyncCall, SyncOutcome>(options, {
      writeGroup: (calls) => syncTransactionRows(sql, calls),
      writeAlone: (call) => syncTransactionRow(sql, call),
      keysOf: (call) => [`${call.workspaceId}\u0000${call.transaction.externalId}`],
      ...commonSteps('syncTransaction'),
    }),
    createInvoice: groupCommit<InvoiceCreateCall, CreateInvoiceOutcome>(options, {
      writeGroup: (calls) => createInvoiceRows(sql, calls),
      writeAlone: (call) => createInvoiceRow(sql, call),
      keysOf: (call) => [`${call.workspaceId}\u0000${call.invoiceId}`],
      ...commonSteps('createInvoice'),
    }),
  };
}
