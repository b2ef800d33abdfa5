import { DomainError } from '../../core/errors.js';
import { findProductByCode } from '../../db/products.js';
import type { Handler } from '../handlerTypes.js';
import { presentProduct } from './present.js';

export const getProduct: Handler<'getProduct'> = async ({ sql, caller, path }) => {
  const row = await findProductByCode(sql, caller.workspaceId, path.code);
  if (!row) throw new DomainError('product_not_found', `No product with code '${path.code}'.`);
  return { status: 200, body: { data: presentProduct(row) } };
};
