import type { HandlerTable } from './handler.js';
import { createProduct } from './products/createProduct.js';
import { getProduct } from './products/getProduct.js';
import { listProducts } from './products/listProducts.js';

/**
 * Every REST operation Tally serves, by operationId. Operations of the spec not listed here (see
 * pending.ts) answer 501 `not_implemented`.
 */
export const handlers: HandlerTable = {
  createProduct,
  getProduct,
  listProducts,
};
