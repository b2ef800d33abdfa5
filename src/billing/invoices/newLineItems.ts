import type { components } from '../../../generated/billing.js';
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
  currency: components['schemas']['CurrencyCode'];
  price?: { amount?: string; unit_price?: string; quantity?: number };
  deprecatedAmount?: string;
  tags?: Tag[];
};

/** A line item to create, as the current contract writes it (POST and PATCH), at its pointer. */
export function lineItemSpec(item: components['schemas']['LineItemCreate'], pointer: string): NewLineItemSpec {
  return {
    pointer,
    description: item.description,
    productRef: item.product_id,
    type: item.type,
    user: 'id' in item.user ? { id: item.user.id } : { externalId: item.user.external_id },
    currency: item.currency_code ?? 'USD',
    price: item.price,
    deprecatedAmount: item.amount,
    tags: item.tags,
  };
}

type References = { products: Map<string, ProductRef>; usersById: Map<string, BillingUser> };

/** Checks every spec, then returns complete rows at the given positions (not yet written). */
export async function newLineItems(
  db: Db,
  workspaceId: string,
  invoiceId: string,
  specs: readonly NewLineItemSpec[],
  firstPosition: number,
): Promise<LineItemRow[]> {
  const tags = checkSpecs(specs);
  return completeLineItems(
    db,
    workspaceId,
    invoiceId,
    specs,
    tags,
    await lookUpReferences(db, workspaceId, specs),
    firstPosition,
  );
}

/** Amount ranges and tag lists, which need no database; returns each spec's tags. */
export function checkSpecs(specs: readonly NewLineItemSpec[]): Tag[][] {
  for (const spec of specs) {
    for (const [text, where] of [
      [spec.price?.amount, '/price/amount'],
      [spec.price?.unit_price, '/price/unit_price'],
      [spec.deprecatedAmount, '/amount'],
    ] as const) {
      if (text !== undefined) checkAmount(text, `${spec.pointer}${where}`);
    }
  }
  return specs.map((spec) => checkTagList(spec.tags, `${spec.pointer}/tags`));
}

/** The products and the users given by id: both lookups in one round trip (pipelined). */
export async function lookUpReferences(
  db: Db,
  workspaceId: string,
  specs: readonly NewLineItemSpec[],
): Promise<References> {
  const [products, usersById] = await Promise.all([
    findProductsByRef(
      db,
      workspaceId,
      specs.map((spec) => spec.productRef),
    ),
    findUsersById(
      db,
      workspaceId,
      specs.flatMap((spec) => ('id' in spec.user ? [spec.user.id] : [])),
    ),
  ]);
  return { products, usersById };
}

/** Unknown references, then prices, then users created by external id: complete rows. */
export async function completeLineItems(
  db: Db,
  workspaceId: string,
  invoiceId: string,
  specs: readonly NewLineItemSpec[],
  tags: Tag[][],
  { products, usersById }: References,
  firstPosition: number,
): Promise<LineItemRow[]> {
  checkReferences(specs, { products, usersById });
  const prices = specs.map((spec) => resolvePrice(spec.price, spec.deprecatedAmount, spec.pointer));
  const usersByExternalId = await ensureUsers(
    db,
    workspaceId,
    specs.flatMap((spec) => ('externalId' in spec.user ? [spec.user.externalId] : [])),
  );
  return specs.map((spec, index) => {
    const product = products.get(spec.productRef)!;
    const user = 'id' in spec.user ? usersById.get(spec.user.id)! : usersByExternalId.get(spec.user.externalId)!;
    return {
      invoiceId,
      id: newId('li'),
      position: firstPosition + index,
      type: spec.type,
      productId: product.id,
      productCode: product.code,
      userId: user.id,
      userExternalId: user.externalId,
      description: spec.description,
      currency: spec.currency,
      unitPrice: prices[index].unitPrice.toString(),
      quantity: prices[index].quantity,
      amount: prices[index].amount.toString(),
      tags: tags[index],
    };
  });
}

/** Throws `unknown_product`, then `unknown_user`, for references the lookups did not find. */
export function checkReferences(specs: readonly NewLineItemSpec[], { products, usersById }: References): void {
  const missingProducts = specs.flatMap((spec, index) => (products.has(spec.productRef) ? [] : [index]));
  if (missingProducts.length > 0) throw unknownProducts(specs, missingProducts);
  const missingUsers = specs.flatMap((spec, index) =>
    'id' in spec.user && !usersById.has(spec.user.id) ? [index] : [],
  );
  if (missingUsers.length > 0) throw unknownUsers(specs, missingUsers);
}

/** `unknown_product` for the specs at these indexes. */
export function unknownProducts(specs: readonly NewLineItemSpec[], indexes: readonly number[]): DomainError {
  return new DomainError('unknown_product', `Product ${specs[indexes[0]].productRef} does not exist.`, {
    violations: indexes.map((index) => ({
      pointer: `${specs[index].pointer}/product_id`,
      message: `product ${specs[index].productRef} does not exist`,
    })),
  });
}

/** `unknown_user` for the specs at these indexes (users named by an id that does not exist). */
export function unknownUsers(specs: readonly NewLineItemSpec[], indexes: readonly number[]): DomainError {
  const idOf = (index: number) => (specs[index].user as { id: string }).id;
  const violations: Violation[] = indexes.map((index) => ({
    pointer: `${specs[index].pointer}/user/id`,
    message: `user ${idOf(index)} does not exist`,
  }));
  return new DomainError('unknown_user', `No user with id ${idOf(indexes[0])}.`, { violations });
}
