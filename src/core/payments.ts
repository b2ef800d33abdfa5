import { DomainError } from './errors.js';
import { evaluateAmount, type Parameters } from './templates.js';

// Experimental payments: a payment type of the schema (or a plain amount) turned into the
// amount to collect. Parameters are a flat object of strings, nothing nested.

export const PLAIN_AMOUNT_RANGE = { min: 100n, max: 10_000_000n } as const;

export type SchemaPaymentType = {
  type: string;
  typeVersion: number;
  status?: string | null;
  payment: { amount: string; direction: string };
};

/** The payment type by name and version, or its latest active version when none is given. */
export function findPaymentType(
  types: readonly SchemaPaymentType[],
  type: string,
  typeVersion: number | null | undefined,
): SchemaPaymentType {
  const active = types.filter((candidate) => candidate.type === type && (candidate.status ?? 'active') === 'active');
  const found =
    typeVersion == null
      ? active.sort((a, b) => b.typeVersion - a.typeVersion)[0]
      : active.find((candidate) => candidate.typeVersion === typeVersion);
  if (!found) {
    const version = typeVersion == null ? 'in an active version' : `version ${typeVersion}`;
    throw new DomainError('payment_type_not_found', `The ledger's schema has no payment type ${type} ${version}.`, {
      type,
    });
  }
  return found;
}

export function paymentParameters(given: unknown): Parameters {
  if (given == null) return {};
  if (typeof given !== 'object' || Array.isArray(given))
    throw new DomainError('entry_parameters_invalid', 'parameters must be a flat object of strings.');
  for (const [name, value] of Object.entries(given)) {
    if (typeof value !== 'string') {
      const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
      throw new DomainError(
        'entry_parameters_invalid',
        `Payment parameter ${name} is ${kind}; payment parameters are strings, nothing nested.`,
        { parameter: name },
      );
    }
  }
  return given as Parameters;
}

/** The amount the payment type's expression gives; it must be positive. */
export function paymentAmount(paymentType: SchemaPaymentType, parameters: Parameters): bigint {
  const amount = evaluateAmount(
    paymentType.payment.amount,
    parameters,
    `the amount of payment type ${paymentType.type}`,
  );
  if (amount <= 0n)
    throw new DomainError(
      'invalid_input_provided',
      `Payment type ${paymentType.type} gives the amount ${amount}; it must be positive.`,
    );
  return amount;
}

export function checkPlainAmount(amount: string): bigint {
  const value = BigInt(amount);
  if (value < PLAIN_AMOUNT_RANGE.min || value > PLAIN_AMOUNT_RANGE.max) {
    throw new DomainError(
      'invalid_input_provided',
      `amount must be from ${PLAIN_AMOUNT_RANGE.min} to ${PLAIN_AMOUNT_RANGE.max}.`,
    );
  }
  return value;
}
