import type { HandlerTable } from './handlerTypes.js';
import { createInvoice } from './invoices/createInvoice.js';
import { getInvoice } from './invoices/getInvoice.js';
import { listInvoiceHistory } from './invoices/listInvoiceHistory.js';
import { listInvoices } from './invoices/listInvoices.js';
import { updateInvoice } from './invoices/updateInvoice.js';
import { updateInvoiceLegacy } from './invoices/updateInvoiceLegacy.js';
import { createProduct } from './products/createProduct.js';
import { getProduct } from './products/getProduct.js';
import { createPaymentFlow } from './paymentFlows/createPaymentFlow.js';
import { getPaymentFlow } from './paymentFlows/getPaymentFlow.js';
import { searchPaymentFlows } from './paymentFlows/searchPaymentFlows.js';
import { getPayment } from './payments/getPayment.js';
import { searchPayments } from './payments/searchPayments.js';
import { listProducts } from './products/listProducts.js';
import { listTransactions } from './transactions/listTransactions.js';
import { searchAllocations } from './transactions/searchAllocations.js';
import { syncTransaction } from './transactions/syncTransaction.js';

/**
 * Every REST operation Tally serves, by operationId: all of the contract's billing operations
 * (a contract test checks that this table covers the spec exactly).
 */
export const handlers: HandlerTable = {
  createProduct,
  getProduct,
  listProducts,
  createInvoice,
  getInvoice,
  listInvoices,
  updateInvoice,
  updateInvoiceLegacy,
  listInvoiceHistory,
  listTransactions,
  syncTransaction,
  searchAllocations,
  createPaymentFlow,
  getPaymentFlow,
  searchPaymentFlows,
  getPayment,
  searchPayments,
};
