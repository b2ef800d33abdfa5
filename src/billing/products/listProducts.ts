import { listProducts as listProductRows } from '../../db/products.js';
import type { Handler } from '../handlerTypes.js';
import { presentProduct } from './present.js';

export const listProducts: Handler<'listProducts'> = async ({ sql, caller }) => ({
  status: 200,
  body: { data: (await listProductRows(sql, caller.workspaceId)).map(presentProduct) },
});
