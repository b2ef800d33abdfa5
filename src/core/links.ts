import { DomainError } from './errors.js';

// Limits and text rules of custom currencies, links, external accounts and transactions.

export const MAX_SYNC_ITEMS = 100;
export const MAX_DELETE_TXS = 100;
export const MAX_CUSTOM_CURRENCY_TEXT = 36;
export const MAX_NAME_LENGTH = 256;
export const MAX_TX_DESCRIPTION_LENGTH = 1024;
/** Display precision of a custom currency, in decimal places. */
export const PRECISION_RANGE = { min: 0, max: 18 } as const;

/** A display name: not blank, at most 256 characters. */
export function checkName(name: string, where: string): string {
  if (name.trim() === '') throw new DomainError('invalid_input_provided', `${where}: the name must not be blank.`);
  if (name.length > MAX_NAME_LENGTH)
    throw new DomainError(
      'invalid_input_provided',
      `${where}: the name has ${name.length} characters; at most ${MAX_NAME_LENGTH} are allowed.`,
    );
  return name;
}

export function checkBatchSize(count: number, max: number, what: string): void {
  if (count === 0) throw new DomainError('invalid_input_provided', `Give at least one ${what}.`);
  if (count > max)
    throw new DomainError('invalid_input_provided', `At most ${max} ${what}s per call; ${count} were given.`);
}
