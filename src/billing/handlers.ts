import type { HandlerTable } from './handler.js';
import { createInvoice } from './invoices/createInvoice.js';
import { getInvoice } from './invoices/getInvoice.js';
import { listInvoiceHistory } from './invoices/listInvoiceHistory.js';
import { listInvoices } from './invoices/listInvoices.js';
import { updateInvoice } from './invoices/updateInvoice.js';
import { updateInvoiceLegacy } from './invoices/updateInvoiceLegacy.js';
import { createProduct } from './products/createProduct.js';
import { getProduct } from './products/getProduct.js';
import { listProducts } from './products/listProducts.js';
import { listTransactions } from './transactions/listTransactions.js';
import { searchAllocations } from './transactions/searchAllocations.js';
import { syncTransaction } from './transactions/syncTransaction.js';

/**
 * Every REST operation Tally serves, by operationId. Operations of the spec not listed here (see
 * pending.ts) answer 501 `not_implemented`.
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
};
