import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ApiErrorCode } from '../../src/core/errors.js';
import { INT96_MAX } from '../../src/core/money.js';
import { checkAmount, resolvePrice, resolvePriceUpdate } from '../../src/core/prices.js';
import { refusalOf } from '../support/domainErrors.js';

// Line-item prices are stored complete (unit price, quantity, amount) and exact: the product is
// bigint arithmetic at any magnitude up to 2^120 − 1, and every disagreement is a 400 naming where.

const AT = '/body/line_items/0';
const RANGE_MESSAGE = 'Amounts must be integers within ±(2^120 − 1).';
const PRICE_MESSAGE = 'The price amount must equal unit_price × quantity.';

const quantity = fc.integer({ min: 1, max: 2_147_483_647 });
// Unit prices small enough that any contract quantity keeps the product within 2^120 − 1.
const unitPrice = fc.bigInt({ min: 0n, max: INT96_MAX / 2_147_483_647n });

describe('checkAmount', () => {
  it('reads every amount within ±(2^120 − 1) as the exact bigint it writes', () => {
    // Law: checkAmount(String(v)) === v on the whole closed range.
    fc.assert(
      fc.property(fc.bigInt({ min: -INT96_MAX, max: INT96_MAX }), (value) => {
        expect(checkAmount(value.toString(), '/body/amount')).toBe(value);
      }),
    );
    expect(checkAmount('1329227995784915872903807060280344575', '/body/amount')).toBe(INT96_MAX);
    expect(checkAmount('-1329227995784915872903807060280344575', '/body/amount')).toBe(-INT96_MAX);
  });

  it('refuses one past either end with invalid_amount pointing at the field', () => {
    // Law: every |v| > 2^120 − 1 is refused, whatever its size.
    fc.assert(
      fc.property(fc.bigInt({ min: INT96_MAX + 1n, max: 1n << 200n }), fc.boolean(), (magnitude, negative) => {
        const error = refusalOf(() => checkAmount((negative ? -magnitude : magnitude).toString(), '/body/amount'));
        expect([error.code, ERROR_CATALOGUE[error.code as ApiErrorCode].status]).toEqual(['invalid_amount', 400]);
      }),
    );
    const error = refusalOf(() => checkAmount((INT96_MAX + 1n).toString(), '/body/allocations/2/amount'));
    expect(error.message).toBe(RANGE_MESSAGE);
    expect(error.details).toEqual({
      violations: [{ pointer: '/body/allocations/2/amount', message: 'exceeds 2^120 − 1' }],
    });
    expect(refusalOf(() => checkAmount((-INT96_MAX - 1n).toString(), '/body/amount')).code).toBe('invalid_amount');
  });
});

describe('resolvePrice (new line items)', () => {
  it('completes an amount alone as quantity 1 at that unit price', () => {
    expect(resolvePrice({ amount: '2200' }, undefined, AT)).toEqual({ unitPrice: 2200n, quantity: 1, amount: 2200n });
    // The deprecated top-level amount means the same as price.amount.
    expect(resolvePrice(undefined, '500', AT)).toEqual({ unitPrice: 500n, quantity: 1, amount: 500n });
    expect(resolvePrice({ amount: '500' }, '500', AT)).toEqual({ unitPrice: 500n, quantity: 1, amount: 500n });
    expect(resolvePrice({ amount: '0' }, undefined, AT)).toEqual({ unitPrice: 0n, quantity: 1, amount: 0n });
  });

  it('multiplies unit price by quantity exactly, the amount optional and checked when given', () => {
    expect(resolvePrice({ unit_price: '1250', quantity: 2 }, undefined, AT)).toEqual({
      unitPrice: 1250n,
      quantity: 2,
      amount: 2500n,
    });
    expect(resolvePrice({ amount: '2700', unit_price: '900', quantity: 3 }, undefined, AT)).toEqual({
      unitPrice: 900n,
      quantity: 3,
      amount: 2700n,
    });
    expect(resolvePrice({ unit_price: '900', quantity: 3 }, '2700', AT)).toEqual({
      unitPrice: 900n,
      quantity: 3,
      amount: 2700n,
    });
  });

  it('answers the contract example of a wrong amount with invalid_price at the price object', () => {
    const error = refusalOf(() => resolvePrice({ amount: '2600', unit_price: '1250', quantity: 2 }, undefined, AT));
    expect([error.code, ERROR_CATALOGUE[error.code as ApiErrorCode].status, error.message]).toEqual([
      'invalid_price',
      400,
      PRICE_MESSAGE,
    ]);
    expect(error.details).toEqual({
      violations: [{ pointer: `${AT}/price`, message: 'amount 2600 differs from unit_price × quantity = 2500' }],
    });
    // The deprecated amount is held to the same product.
    expect(refusalOf(() => resolvePrice({ unit_price: '1250', quantity: 2 }, '2600', AT)).details).toEqual({
      violations: [{ pointer: `${AT}/price`, message: 'amount 2600 differs from unit_price × quantity = 2500' }],
    });
  });

  it('refuses a price.amount and a deprecated amount that disagree', () => {
    const error = refusalOf(() => resolvePrice({ amount: '500' }, '501', AT));
    expect(error.code).toBe('invalid_price');
    expect(error.details).toEqual({
      violations: [{ pointer: `${AT}/price`, message: 'price.amount 500 differs from amount 501' }],
    });
  });

  it('refuses a line item with no price at all', () => {
    for (const price of [undefined, {}]) {
      const error = refusalOf(() => resolvePrice(price, undefined, AT));
      expect(error.code).toBe('invalid_price');
      expect(error.details).toEqual({
        violations: [{ pointer: `${AT}/price`, message: 'give price.amount, or price.unit_price with price.quantity' }],
      });
    }
  });

  it('checks each amount for range before any agreement, price.amount first', () => {
    // Range problems are invalid_amount and outrank invalid_price, as the contract orders them.
    const tooBig = (INT96_MAX + 1n).toString();
    expect(refusalOf(() => resolvePrice({ amount: tooBig }, '1', AT)).details).toEqual({
      violations: [{ pointer: `${AT}/price/amount`, message: 'exceeds 2^120 − 1' }],
    });
    expect(refusalOf(() => resolvePrice({ amount: '1' }, tooBig, AT)).details).toEqual({
      violations: [{ pointer: `${AT}/amount`, message: 'exceeds 2^120 − 1' }],
    });
    expect(refusalOf(() => resolvePrice({ amount: tooBig }, tooBig, AT)).details).toEqual({
      violations: [{ pointer: `${AT}/price/amount`, message: 'exceeds 2^120 − 1' }],
    });
    expect(
      refusalOf(() => resolvePrice({ amount: '5', unit_price: tooBig, quantity: 1 }, undefined, AT)).details,
    ).toEqual({
      violations: [{ pointer: `${AT}/price/unit_price`, message: 'exceeds 2^120 − 1' }],
    });
  });

  it('refuses a product beyond 2^120 − 1 and accepts one exactly at it', () => {
    const error = refusalOf(() => resolvePrice({ unit_price: INT96_MAX.toString(), quantity: 2 }, undefined, AT));
    expect([error.code, error.message]).toEqual(['invalid_amount', RANGE_MESSAGE]);
    expect(error.details).toEqual({
      violations: [{ pointer: `${AT}/price`, message: 'unit_price × quantity exceeds 2^120 − 1' }],
    });
    // 2^120 − 1 is divisible by 3, so a unit price times 3 can land on the bound itself.
    expect(resolvePrice({ unit_price: (INT96_MAX / 3n).toString(), quantity: 3 }, undefined, AT)).toEqual({
      unitPrice: INT96_MAX / 3n,
      quantity: 3,
      amount: INT96_MAX,
    });
  });

  it('gives amount = unit_price × quantity exactly, beyond float precision too', () => {
    // Law: amount === unitPrice * BigInt(quantity), and giving that amount explicitly changes nothing.
    fc.assert(
      fc.property(unitPrice, quantity, (unit, count) => {
        const resolved = resolvePrice({ unit_price: unit.toString(), quantity: count }, undefined, AT);
        expect(resolved).toEqual({ unitPrice: unit, quantity: count, amount: unit * BigInt(count) });
        const withAmount = { amount: resolved.amount.toString(), unit_price: unit.toString(), quantity: count };
        expect(resolvePrice(withAmount, undefined, AT)).toEqual(resolved);
      }),
    );
  });

  it('is additive in quantity: the amounts of q1 and q2 units sum to the amount of q1 + q2 units', () => {
    // Law: price(u, q1) + price(u, q2) = price(u, q1 + q2); splitting a line item never loses a unit.
    const half = fc.integer({ min: 1, max: 1_073_741_823 });
    fc.assert(
      fc.property(unitPrice, half, half, (unit, q1, q2) => {
        const amountOf = (count: number) =>
          resolvePrice({ unit_price: unit.toString(), quantity: count }, undefined, AT).amount;
        expect(amountOf(q1) + amountOf(q2)).toBe(amountOf(q1 + q2));
      }),
    );
  });

  it('refuses every given amount that is not the product, by exactly the product it names', () => {
    // Law: an amount a ≠ u × q within range is invalid_price, and the message carries the true
    // product. Near the top of the range the wrong amount lies below the product, not past the range.
    fc.assert(
      fc.property(unitPrice, quantity, fc.bigInt({ min: 1n, max: 1n << 64n }), (unit, count, off) => {
        const product = unit * BigInt(count);
        const wrong = (product + off <= INT96_MAX ? product + off : product - off).toString();
        const error = refusalOf(() =>
          resolvePrice({ amount: wrong, unit_price: unit.toString(), quantity: count }, undefined, AT),
        );
        expect(error.code).toBe('invalid_price');
        expect(error.details?.violations).toEqual([
          { pointer: `${AT}/price`, message: `amount ${wrong} differs from unit_price × quantity = ${product}` },
        ]);
      }),
      { examples: [[INT96_MAX / 2_147_483_647n, 2_147_483_647, 1n << 64n]] },
    );
  });
});

describe('resolvePriceUpdate (existing line items)', () => {
  const ITEM = '/body/line_items/update/1';

  it('takes unit price and quantity, with an amount that must agree', () => {
    expect(resolvePriceUpdate({ unit_price: '900', quantity: 3 }, ITEM)).toEqual({
      unitPrice: 900n,
      quantity: 3,
      amount: 2700n,
    });
    expect(resolvePriceUpdate({ amount: '2700', unit_price: '900', quantity: 3 }, ITEM)).toEqual({
      unitPrice: 900n,
      quantity: 3,
      amount: 2700n,
    });
    const error = refusalOf(() => resolvePriceUpdate({ amount: '2701', unit_price: '900', quantity: 3 }, ITEM));
    expect([error.code, error.message]).toEqual(['invalid_price', PRICE_MESSAGE]);
    expect(error.details).toEqual({
      violations: [{ pointer: `${ITEM}/price`, message: 'amount 2701 differs from unit_price × quantity = 2700' }],
    });
  });

  it('checks ranges of unit price, amount and their product', () => {
    const tooBig = (INT96_MAX + 1n).toString();
    expect(refusalOf(() => resolvePriceUpdate({ unit_price: tooBig, quantity: 1 }, ITEM)).details).toEqual({
      violations: [{ pointer: `${ITEM}/price/unit_price`, message: 'exceeds 2^120 − 1' }],
    });
    expect(refusalOf(() => resolvePriceUpdate({ amount: tooBig, unit_price: '1', quantity: 1 }, ITEM)).details).toEqual(
      {
        violations: [{ pointer: `${ITEM}/price/amount`, message: 'exceeds 2^120 − 1' }],
      },
    );
    expect(
      refusalOf(() => resolvePriceUpdate({ unit_price: (1n << 119n).toString(), quantity: 2 }, ITEM)).details,
    ).toEqual({
      violations: [{ pointer: `${ITEM}/price`, message: 'unit_price × quantity exceeds 2^120 − 1' }],
    });
  });

  it('prices exactly as a new line item would', () => {
    // Law: resolvePriceUpdate(p) equals resolvePrice(p) for every complete price.
    fc.assert(
      fc.property(unitPrice, quantity, (unit, count) => {
        const price = { unit_price: unit.toString(), quantity: count };
        expect(resolvePriceUpdate(price, ITEM)).toEqual(resolvePrice(price, undefined, ITEM));
      }),
    );
  });
});
