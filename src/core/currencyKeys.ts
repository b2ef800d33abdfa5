import { DomainError } from './errors.js';

// One text key per currency, as stored in every currency column: a built-in currency's code
// ('USD'), or 'CUSTOM:<customCurrencyId>' for a custom one. SafeString ids cannot hold ':', so
// the key is unambiguous and built-in keys stay what they always were.

export type CurrencyMatch = { code: string; customCurrencyId?: string | null };

const CUSTOM_PREFIX = 'CUSTOM:';

/** The key of a CurrencyMatchInput: `{code: CUSTOM, customCurrencyId}` or a built-in code alone. */
export function currencyKey(match: CurrencyMatch, where = 'currency'): string {
  if (match.code === 'CUSTOM') {
    if (!match.customCurrencyId)
      throw new DomainError('invalid_input_provided', `${where}: code CUSTOM needs a customCurrencyId.`);
    return `${CUSTOM_PREFIX}${match.customCurrencyId}`;
  }
  if (match.customCurrencyId) {
    throw new DomainError(
      'invalid_input_provided',
      `${where}: customCurrencyId goes with code CUSTOM, not ${match.code}.`,
    );
  }
  return match.code;
}

export const optionalCurrencyKey = (match: CurrencyMatch | null | undefined, where?: string): string | null =>
  match ? currencyKey(match, where) : null;

/** The custom currency id a key names, or null for a built-in currency. */
export function customCurrencyIdOf(key: string): string | null {
  return key.startsWith(CUSTOM_PREFIX) ? key.slice(CUSTOM_PREFIX.length) : null;
}

/** The CurrencyMatchInput a key stands for. */
export function parseCurrencyKey(key: string): CurrencyMatch {
  const id = customCurrencyIdOf(key);
  return id === null ? { code: key } : { code: 'CUSTOM', customCurrencyId: id };
}

/** The key as the contract writes it: `USD`, or `CUSTOM (points)` for messages. */
export function currencyLabel(key: string): string {
  const id = customCurrencyIdOf(key);
  return id === null ? key : `CUSTOM (${id})`;
}
