import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  currencyKey,
  currencyLabel,
  customCurrencyIdOf,
  optionalCurrencyKey,
  parseCurrencyKey,
} from '../../src/core/currencyKeys.js';
import { refusalOf } from '../support/domainErrors.js';

// Every currency column holds one text key: a built-in code as it always was ('USD'), or
// 'CUSTOM:<customCurrencyId>'. The key and the CurrencyMatchInput it stands for convert both ways.

const builtIn = fc.constantFrom('USD', 'EUR', 'JPY', 'BTC', 'USDC', 'MATIC', 'LOGICAL', 'PTS');
// SafeString ids cannot hold ':', but the key stays unambiguous even if one did.
const customId = fc.oneof(fc.constantFrom('points', 'USD', 'a:b'), fc.string({ minLength: 1, maxLength: 36 }));
type Match = { code: string; customCurrencyId?: string };
const match: fc.Arbitrary<Match> = fc.oneof(
  builtIn.map((code) => ({ code })),
  customId.map((id) => ({ code: 'CUSTOM', customCurrencyId: id })),
);

describe('currencyKey', () => {
  it('keys a built-in currency by its code and a custom one by its id', () => {
    expect(currencyKey({ code: 'USD' })).toBe('USD');
    expect(currencyKey({ code: 'LOGICAL', customCurrencyId: null })).toBe('LOGICAL');
    expect(currencyKey({ code: 'CUSTOM', customCurrencyId: 'points' })).toBe('CUSTOM:points');
  });

  it('refuses CUSTOM without an id, naming where', () => {
    for (const customCurrencyId of [undefined, null, '']) {
      const error = refusalOf(() => currencyKey({ code: 'CUSTOM', customCurrencyId }, 'ledgerAccount.currency'));
      expect([error.code, error.message]).toEqual([
        'invalid_input_provided',
        'ledgerAccount.currency: code CUSTOM needs a customCurrencyId.',
      ]);
    }
    expect(refusalOf(() => currencyKey({ code: 'CUSTOM' })).message).toBe(
      'currency: code CUSTOM needs a customCurrencyId.',
    );
  });

  it('refuses a custom currency id beside a built-in code', () => {
    const error = refusalOf(() => currencyKey({ code: 'USD', customCurrencyId: 'points' }, 'filter.currency'));
    expect([error.code, error.message]).toEqual([
      'invalid_input_provided',
      'filter.currency: customCurrencyId goes with code CUSTOM, not USD.',
    ]);
  });
});

describe('optionalCurrencyKey', () => {
  it('keys a currency when one is given and answers null otherwise', () => {
    expect(optionalCurrencyKey({ code: 'CUSTOM', customCurrencyId: 'points' })).toBe('CUSTOM:points');
    expect(optionalCurrencyKey(null)).toBeNull();
    expect(optionalCurrencyKey(undefined)).toBeNull();
    // Without a where, the message says "currency" as currencyKey does.
    expect(refusalOf(() => optionalCurrencyKey({ code: 'CUSTOM' })).message).toBe(
      'currency: code CUSTOM needs a customCurrencyId.',
    );
    expect(refusalOf(() => optionalCurrencyKey({ code: 'CUSTOM' }, 'lines/0/currency')).message).toBe(
      'lines/0/currency: code CUSTOM needs a customCurrencyId.',
    );
  });
});

describe('reading keys back', () => {
  it('finds the custom currency id of a key, or null for a built-in one', () => {
    expect(customCurrencyIdOf('CUSTOM:points')).toBe('points');
    expect(customCurrencyIdOf('CUSTOM:a:b')).toBe('a:b');
    expect(customCurrencyIdOf('USD')).toBeNull();
    expect(customCurrencyIdOf('CUSTOM')).toBeNull();
  });

  it('parses a key into the CurrencyMatchInput it stands for', () => {
    expect(parseCurrencyKey('USD')).toEqual({ code: 'USD' });
    expect(parseCurrencyKey('CUSTOM:points')).toEqual({ code: 'CUSTOM', customCurrencyId: 'points' });
  });

  it('labels a key as the contract writes it', () => {
    expect(currencyLabel('USD')).toBe('USD');
    expect(currencyLabel('CUSTOM:points')).toBe('CUSTOM (points)');
  });
});

describe('keys and matches convert both ways', () => {
  it('parses every custom key back to its match', () => {
    // Law: parseCurrencyKey(currencyKey({CUSTOM, id})) = {CUSTOM, id} and customCurrencyIdOf gives id back.
    fc.assert(
      fc.property(customId, (id) => {
        const key = currencyKey({ code: 'CUSTOM', customCurrencyId: id });
        expect(parseCurrencyKey(key)).toEqual({ code: 'CUSTOM', customCurrencyId: id });
        expect(customCurrencyIdOf(key)).toBe(id);
        expect(currencyLabel(key)).toBe(`CUSTOM (${id})`);
      }),
    );
  });

  it('parses every built-in key back to its code, and keys it again unchanged', () => {
    // Law: currencyKey(parseCurrencyKey(k)) = k for every key currencyKey makes.
    fc.assert(
      fc.property(match, (given) => {
        const key = currencyKey(given);
        expect(currencyKey(parseCurrencyKey(key))).toBe(key);
      }),
    );
    fc.assert(
      fc.property(builtIn, (code) => {
        expect(parseCurrencyKey(currencyKey({ code }))).toEqual({ code });
        expect(customCurrencyIdOf(code)).toBeNull();
      }),
    );
  });

  it('never gives two currencies the same key', () => {
    // Law: currencyKey is injective: different matches (built-in codes, custom ids) give different keys.
    fc.assert(
      fc.property(match, match, (a, b) => {
        const same = a.code === b.code && a.customCurrencyId === b.customCurrencyId;
        expect(currencyKey(a) === currencyKey(b)).toBe(same);
      }),
    );
  });
});
