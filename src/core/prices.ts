import { DomainError } from './errors.js';
import { INT96_MAX } from './money.js';

// Line-item prices: the caller gives an amount, a unit price with a quantity, or all three;
// Tally stores all three, exact. Amounts beyond ±(2^120 − 1) never reach the database.

export type ResolvedPrice = { unitPrice: bigint; quantity: number; amount: bigint };
type PriceInput = { amount?: string; unit_price?: string; quantity?: number };

/** Throws `invalid_amount` naming the pointer when an amount leaves the Int96 range. */
export function checkAmount(text: string, pointer: string): bigint {
  const value = BigInt(text);
  if (value > INT96_MAX || value < -INT96_MAX) {
    throw new DomainError('invalid_amount', 'Amounts must be integers within ±(2^120 − 1).', {
      violations: [{ pointer, message: 'exceeds 2^120 − 1' }],
    });
  }
  return value;
}

/**
 * The complete price of a new line item from `price` and the deprecated top-level `amount`:
 * they must agree, and an amount given beside unit price and quantity must equal their product.
 */
export function resolvePrice(
  price: PriceInput | undefined,
  deprecatedAmount: string | undefined,
  pointer: string,
): ResolvedPrice {
  const amounts = [price?.amount, deprecatedAmount].filter((value): value is string => value !== undefined);
  if (price?.amount !== undefined) checkAmount(price.amount, `${pointer}/price/amount`);
  if (deprecatedAmount !== undefined) checkAmount(deprecatedAmount, `${pointer}/amount`);
  if (price?.unit_price !== undefined) checkAmount(price.unit_price, `${pointer}/price/unit_price`);
  if (amounts.length === 2 && BigInt(amounts[0]) !== BigInt(amounts[1])) {
    throw invalidPrice(`${pointer}/price`, `price.amount ${amounts[0]} differs from amount ${amounts[1]}`);
  }
  if (price?.unit_price !== undefined && price.quantity !== undefined) {
    return withProduct(BigInt(price.unit_price), price.quantity, amounts[0], pointer);
  }
  if (amounts.length === 0)
    throw invalidPrice(`${pointer}/price`, 'give price.amount, or price.unit_price with price.quantity');
  const amount = BigInt(amounts[0]);
  return { unitPrice: amount, quantity: 1, amount };
}

/** The new price of an existing line item: unit price and quantity, with an optional amount that must agree. */
export function resolvePriceUpdate(
  price: { amount?: string; unit_price: string; quantity: number },
  pointer: string,
): ResolvedPrice {
  checkAmount(price.unit_price, `${pointer}/price/unit_price`);
  if (price.amount !== undefined) checkAmount(price.amount, `${pointer}/price/amount`);
  return withProduct(BigInt(price.unit_price), price.quantity, price.amount, pointer);
}

function withProduct(
  unitPrice: bigint,
  quantity: number,
  givenAmount: string | undefined,
  pointer: string,
): ResolvedPrice {
  const amount = unitPrice * BigInt(quantity);
  if (amount > INT96_MAX) {
    throw new DomainError('invalid_amount', 'Amounts must be integers within ±(2^120 − 1).', {
      violations: [{ pointer: `${pointer}/price`, message: 'unit_price × quantity exceeds 2^120 − 1' }],
    });
  }
  if (givenAmount !== undefined && BigInt(givenAmount) !== amount) {
    throw invalidPrice(`${pointer}/price`, `amount ${givenAmount} differs from unit_price × quantity = ${amount}`);
  }
  return { unitPrice, quantity, amount };
}

function invalidPrice(pointer: string, message: string): DomainError {
  return new DomainError('invalid_price', 'The price amount must equal unit_price × quantity.', {
    violations: [{ pointer, message }],
  });
}
