// The billing API's shapes, from the types generated out of the contract.

import type { components } from '../../../generated/billing.js';

type Schemas = components['schemas'];
export type Invoice = Schemas['Invoice'];
export type InvoiceWithBalances = Schemas['InvoiceWithBalances'];
export type InvoiceHistoryEntry = Schemas['InvoiceHistoryEntry'];
export type BalanceRow = Schemas['BalanceRow'];
export type Transaction = Schemas['Transaction'];
export type PaymentFlow = Schemas['PaymentFlow'];
export type PaymentBatch = Schemas['PaymentBatch'];
