import { checkTagList, type Tag } from '../../core/billingTags.js';
import { DomainError, type Violation } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { checkAmount, resolvePrice } from '../../core/prices.js';
import { ensureUsers, findUsersById, type BillingUser } from '../../db/billingUsers.js';
import type { LineItemRow } from '../../db/invoices.js';
import { findProductsByRef, type ProductRef } from '../../db/products.js';
import type { Db } from '../../db/sql.js';

// New line items from any request form (current create, earlier create, PATCH create, earlier
// `add`): amounts in range, then references (products, users), then prices, in the contract's
// order of checks. Users named by external id are created only once everything else passed.

export type NewLineItemSpec = {
  /** JSON pointer of the item in the request, for violations. */
  pointer: string;
  description: string;
  productRef: string;
  type: 'payin' | 'payout';
  user: { id: string } | { externalId: string; pointer?: string };
  currency: string;
  price?: { amount?: string; unit_price?: string; quantity?: number };
  deprecatedAmount?: string;
  tags?: Tag[];
};

type References = { products: Map<string, ProductRef>; usersById: Map<string, BillingUser> };

/** Checks every spec, then returns complete rows at the given positions (not yet written). */
export async function newLineItems(db: Db, workspaceId: string, invoiceId: string, specs: readonly NewLineItemSpec[], firstPosition: number): Promise<LineItemRow[]> {
  const tags = checkSpecs(specs);
  return completeLineItems(db, workspaceId, invoiceId, specs, tags, await lookUpReferences(db, workspaceId, specs), firstPosition);
}

/** Amount ranges and tag lists, which need no database; returns each spec's tags. */
export function checkSpecs(specs: readonly NewLineItemSpec[]): Tag[][] {
  for (const spec of specs) {
    for (const [text, where] of [[spec.price?.amount, '/price/amount'], [spec.price?.unit_price, '/price/unit_price'], [spec.deprecatedAmount, '/amount']] as const) {
      if (text !== undefined) checkAmount(text, `${spec.pointer}${where}`);
    }
  }
  return specs.map((spec) => checkTagList(spec.tags, `${spec.pointer}/tags`));
}

/** The products and the users given by id: both lookups in one round trip (pipelined). */
export async function lookUpReferences(db: Db, workspaceId: string, specs: readonly NewLineItemSpec[]): Promise<References> {
  const [products, usersById] = await Promise.all([
    findProductsByRef(db, workspaceId, specs.map((spec) => spec.productRef)),
    findUsersById(db, workspaceId, specs.flatMap((spec) => ('id' in spec.user ? [spec.user.id] : []))),
  ]);
  return { products, usersById };
}

/** Unknown references, then prices, then users created by external id: complete rows. */
export async function completeLineItems(
  db: Db, workspaceId: string, invoiceId: string, specs: readonly NewLineItemSpec[], tags: Tag[][], { products, usersById }: References, firstPosition: number,
): Promise<LineItemRow[]> {
  const missingProducts = specs.filter((spec) => !products.has(spec.productRef));
  if (missingProducts.length > 0) {
    throw new DomainError('unknown_product', `Product ${missingProducts[0].productRef} does not exist.`, {
      violations: missingProducts.map((spec) => ({ pointer: `${spec.pointer}/product_id`, message: `product ${spec.productRef} does not exist` })),
    });
  }
  const missingUsers: Violation[] = specs.flatMap((spec) => ('id' in spec.user && !usersById.has(spec.user.id)
    ? [{ pointer: `${spec.pointer}/user/id`, message: `user ${spec.user.id} does not exist` }] : []));
  if (missingUsers.length > 0) throw new DomainError('unknown_user', `No user with id ${missingUsers[0].message.split(' ')[1]}.`, { violations: missingUsers });

  const prices = specs.map((spec) => resolvePrice(spec.price, spec.deprecatedAmount, spec.pointer));
  const usersByExternalId = await ensureUsers(db, workspaceId, specs.flatMap((spec) => ('externalId' in spec.user ? [spec.user.externalId] : [])));
  return specs.map((spec, index) => {
    const product = products.get(spec.productRef)!;
    const user = 'id' in spec.user ? usersById.get(spec.user.id)! : usersByExternalId.get(spec.user.externalId)!;
    return {
      invoiceId, id: newId('li'), position: firstPosition + index, type: spec.type,
      productId: product.id, productCode: product.code, userId: user.id, userExternalId: user.externalId,
      description: spec.description, currency: spec.currency,
      unitPrice: prices[index].unitPrice.toString(), quantity: prices[index].quantity, amount: prices[index].amount.toString(),
      tags: tags[index],
    };
  });
}
