import { invoiceBalances } from '../../core/invoiceBalances.js';
import { invoicePayments } from '../../db/invoices.js';
import type { Handler } from '../handlerTypes.js';
import { currentInvoice } from './currentInvoice.js';

/** The invoice with its balances per currency and per user, and the allocations applied to it. */
export const getInvoice: Handler<'getInvoice'> = async ({ sql, caller, path }) => {
  const { items, invoice } = await currentInvoice(sql, caller.workspaceId, path.id);
  const payments = await invoicePayments(sql, caller.workspaceId, path.id);
  const flow = (type: string) =>
    type === 'payin' || type === 'invoice_payin' ? ('payin' as const) : ('payout' as const);
  const { balances, users } = invoiceBalances(
    items.map((item) => ({
      flow: flow(item.type),
      currency: item.currency,
      user: item.userExternalId,
      amount: BigInt(item.amount),
    })),
    payments.map((payment) => ({
      flow: flow(payment.type),
      currency: payment.currency,
      user: payment.userExternalId,
      amount: BigInt(payment.amount),
    })),
  );
  return {
    status: 200,
    body: {
      data: {
        ...invoice,
        balances: balances,
        users: users,
        payments: payments.map((payment) => ({
          amount: payment.amount,
          currency: payment.currency,
          posted: payment.posted.toISOString(),
          transaction: {
            id: payment.transactionId,
            external_id: payment.transactionExternalId,
            tags: payment.transactionTags,
          },
          type: flow(payment.type),
          user: { id: payment.userId, external_id: payment.userExternalId },
        })),
      },
    },
  };
};
