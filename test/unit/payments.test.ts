import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ApiErrorCode } from '../../src/core/errors.js';
import {
  checkPlainAmount,
  findPaymentType,
  paymentAmount,
  paymentParameters,
  PLAIN_AMOUNT_RANGE,
  type SchemaPaymentType,
} from '../../src/core/payments.js';
import { refusalOf } from '../support/domainErrors.js';

// createPayment (experimental): a payment type of the ledger's schema, found by name and version,
// turns flat string parameters into a positive amount; a plain amount must lie in 100..10000000.

const paymentType = (
  type: string,
  typeVersion: number,
  status?: string | null,
  amount = '{{amount}}',
): SchemaPaymentType => ({ type, typeVersion, status, payment: { amount, direction: 'inbound' } });

describe('findPaymentType', () => {
  const types = [
    paymentType('deposit', 1),
    paymentType('deposit', 3, 'archived'),
    paymentType('deposit', 2, null),
    paymentType('refund', 5, 'active'),
  ];

  it('takes the latest active version when none is given, a missing status counting as active', () => {
    expect(findPaymentType(types, 'deposit', undefined)).toBe(types[2]);
    expect(findPaymentType(types, 'deposit', null)).toBe(types[2]);
    expect(findPaymentType(types, 'refund', undefined)).toBe(types[3]);
  });

  it('takes the version asked for when it is active', () => {
    expect(findPaymentType(types, 'deposit', 1)).toBe(types[0]);
    expect(findPaymentType(types, 'deposit', 2)).toBe(types[2]);
  });

  it('refuses an unknown type, an unknown version and an archived version with payment_type_not_found', () => {
    const archived = refusalOf(() => findPaymentType(types, 'deposit', 3));
    expect([archived.code, ERROR_CATALOGUE[archived.code as ApiErrorCode].status, archived.message]).toEqual([
      'payment_type_not_found',
      400,
      "The ledger's schema has no payment type deposit version 3.",
    ]);
    expect(archived.details).toEqual({ type: 'deposit' });
    expect(refusalOf(() => findPaymentType(types, 'deposit', 9)).message).toBe(
      "The ledger's schema has no payment type deposit version 9.",
    );
    expect(refusalOf(() => findPaymentType(types, 'payout', undefined)).message).toBe(
      "The ledger's schema has no payment type payout in an active version.",
    );
    const onlyArchived = [paymentType('deposit', 1, 'archived')];
    expect(refusalOf(() => findPaymentType(onlyArchived, 'deposit', undefined)).code).toBe('payment_type_not_found');
  });

  it("leaves the schema's list as it was", () => {
    const before = [...types];
    findPaymentType(types, 'deposit', undefined);
    expect(types).toEqual(before);
  });

  it('finds the highest active version, whatever the order of the list', () => {
    // Law: findPaymentType(T, t, none).typeVersion = max{v | (t, v) ∈ T active}, and it throws iff that set is empty.
    const entry = fc.record({ version: fc.integer({ min: 1, max: 50 }), active: fc.boolean() });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.version, maxLength: 8 }), (entries) => {
        const list = entries.map((e) => paymentType('deposit', e.version, e.active ? 'active' : 'archived'));
        const activeVersions = entries.filter((e) => e.active).map((e) => e.version);
        if (activeVersions.length === 0) {
          expect(refusalOf(() => findPaymentType(list, 'deposit', undefined)).code).toBe('payment_type_not_found');
        } else {
          expect(findPaymentType(list, 'deposit', undefined).typeVersion).toBe(Math.max(...activeVersions));
        }
      }),
    );
  });
});

describe('paymentParameters', () => {
  it('takes a flat object of strings as it is, and nothing as no parameters', () => {
    const given = { amount: '1500', note: '' };
    expect(paymentParameters(given)).toBe(given);
    expect(paymentParameters(null)).toEqual({});
    expect(paymentParameters(undefined)).toEqual({});
    expect(paymentParameters({})).toEqual({});
  });

  it('refuses what is not an object with entry_parameters_invalid', () => {
    for (const given of ['amount=5', 5, true, ['5']]) {
      const error = refusalOf(() => paymentParameters(given));
      expect([error.code, error.message]).toEqual([
        'entry_parameters_invalid',
        'parameters must be a flat object of strings.',
      ]);
    }
  });

  it('names the parameter that is not a string, and what it is', () => {
    const cases: [unknown, string][] = [
      [1500, 'Payment parameter amount is number; payment parameters are strings, nothing nested.'],
      [null, 'Payment parameter amount is null; payment parameters are strings, nothing nested.'],
      [['1'], 'Payment parameter amount is an array; payment parameters are strings, nothing nested.'],
      [{ value: '1' }, 'Payment parameter amount is object; payment parameters are strings, nothing nested.'],
      [false, 'Payment parameter amount is boolean; payment parameters are strings, nothing nested.'],
    ];
    for (const [value, message] of cases) {
      const error = refusalOf(() => paymentParameters({ note: 'ok', amount: value }));
      expect([error.code, error.message, error.details]).toEqual([
        'entry_parameters_invalid',
        message,
        { parameter: 'amount' },
      ]);
    }
  });
});

describe('paymentAmount', () => {
  it("evaluates the payment type's amount with the parameters", () => {
    expect(
      paymentAmount(paymentType('deposit', 1, 'active', '{{amount}} + {{fee}} - 25'), { amount: '1500', fee: '100' }),
    ).toBe(1575n);
    expect(paymentAmount(paymentType('flat', 1, 'active', '900'), {})).toBe(900n);
  });

  it('refuses an amount of zero or below with invalid_input_provided', () => {
    const zero = refusalOf(() => paymentAmount(paymentType('deposit', 1), { amount: '0' }));
    expect([zero.code, zero.message]).toEqual([
      'invalid_input_provided',
      'Payment type deposit gives the amount 0; it must be positive.',
    ]);
    expect(refusalOf(() => paymentAmount(paymentType('deposit', 1), { amount: '-7' })).message).toBe(
      'Payment type deposit gives the amount -7; it must be positive.',
    );
  });

  it('names a missing parameter with the payment type it belongs to', () => {
    const error = refusalOf(() => paymentAmount(paymentType('deposit', 1), {}));
    expect([error.code, error.message, error.details]).toEqual([
      'entry_parameters_invalid',
      'Parameter amount is required by the amount of payment type deposit but was not given.',
      { parameter: 'amount' },
    ]);
  });

  it('gives the exact sum of its parameters when positive, and refuses it otherwise', () => {
    // Law: paymentAmount('{{a}} + {{b}}', {a, b}) = a + b if a + b > 0, else invalid_input_provided.
    const value = fc.bigInt({ min: -(1n << 100n), max: 1n << 100n });
    fc.assert(
      fc.property(value, value, (a, b) => {
        const type = paymentType('deposit', 1, 'active', '{{a}} + {{b}}');
        const parameters = { a: a.toString(), b: b.toString() };
        if (a + b > 0n) expect(paymentAmount(type, parameters)).toBe(a + b);
        else expect(refusalOf(() => paymentAmount(type, parameters)).code).toBe('invalid_input_provided');
      }),
    );
  });
});

describe('checkPlainAmount', () => {
  it('accepts the range ends and refuses one step beyond them', () => {
    expect(PLAIN_AMOUNT_RANGE).toEqual({ min: 100n, max: 10_000_000n });
    expect(checkPlainAmount('100')).toBe(100n);
    expect(checkPlainAmount('10000000')).toBe(10_000_000n);
    for (const amount of ['99', '10000001', '0', '-500']) {
      const error = refusalOf(() => checkPlainAmount(amount));
      expect([error.code, error.message]).toEqual(['invalid_input_provided', 'amount must be from 100 to 10000000.']);
    }
  });

  it('accepts exactly the amounts from 100 to 10000000', () => {
    // Law: checkPlainAmount(v) = v iff 100 ≤ v ≤ 10000000, else invalid_input_provided.
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }), (value) => {
        if (value >= 100n && value <= 10_000_000n) expect(checkPlainAmount(value.toString())).toBe(value);
        else expect(refusalOf(() => checkPlainAmount(value.toString())).code).toBe('invalid_input_provided');
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 100n, max: 10_000_000n }), (value) => {
        expect(checkPlainAmount(value.toString())).toBe(value);
      }),
    );
  });
});
