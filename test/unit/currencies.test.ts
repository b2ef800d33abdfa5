import { describe, expect, it } from 'vitest';
import { GraphQLEnumType } from 'graphql';
import { builtInCurrency } from '../../src/core/currencies.js';
import { buildLedgerSchema } from '../../src/ledger/graphql/executableSchema.js';

// Built-in currencies are described by the runtime's ICU data, not a hand-kept table: English
// names and minor-unit digits, and codes ICU does not know keep their code as name and 2 digits.

describe('builtInCurrency', () => {
  it('names well-known currencies in English with their minor-unit digits', () => {
    const facts = ['USD', 'EUR', 'JPY', 'CLP', 'BHD', 'KWD', 'TND'].map((code) => {
      const { name, precision } = builtInCurrency(code);
      return [code, name, precision];
    });
    // Codes where ICU's digits and ISO 4217's agree, so the expectation holds whichever source is meant.
    expect(facts).toEqual([
      ['USD', 'US Dollar', 2],
      ['EUR', 'Euro', 2],
      ['JPY', 'Japanese Yen', 0],
      ['CLP', 'Chilean Peso', 0],
      ['BHD', 'Bahraini Dinar', 3],
      ['KWD', 'Kuwaiti Dinar', 3],
      ['TND', 'Tunisian Dinar', 3],
    ]);
  });

  it('is a built-in currency: no custom code, no custom currency id, the code as given', () => {
    expect(builtInCurrency('GBP')).toEqual({
      code: 'GBP',
      name: 'British Pound',
      precision: 2,
      customCode: null,
      customCurrencyId: null,
    });
  });

  it('keeps the code as name and 2 digits for three-letter codes ICU does not know', () => {
    for (const code of ['BTC', 'ETH', 'ADA', 'SOL', 'PTS']) {
      expect(builtInCurrency(code)).toEqual({
        code,
        name: code,
        precision: 2,
        customCode: null,
        customCurrencyId: null,
      });
    }
  });

  it('keeps the code as name and 2 digits for codes that are not three letters (Intl refuses them)', () => {
    for (const code of ['USDC', 'USDT', 'USDG', 'EURC', 'CADC', 'CADT', 'AAVE', 'LINK', 'MATIC', 'LOGICAL']) {
      expect(builtInCurrency(code)).toEqual({
        code,
        name: code,
        precision: 2,
        customCode: null,
        customCurrencyId: null,
      });
    }
  });

  it('describes every built-in code of the contract', () => {
    const currencyCode = buildLedgerSchema().getType('CurrencyCode');
    if (!(currencyCode instanceof GraphQLEnumType)) throw new Error('CurrencyCode is not an enum');
    const codes = currencyCode
      .getValues()
      .map((value) => value.name)
      .filter((code) => code !== 'CUSTOM');
    expect(codes).toHaveLength(178);
    for (const code of codes) expect(builtInCurrency(code).name.length).toBeGreaterThanOrEqual(2);
  });

  it('computes each currency once and answers the same facts after', () => {
    const first = builtInCurrency('NOK');
    expect(builtInCurrency('NOK')).toBe(first);
    expect(first).toEqual({
      code: 'NOK',
      name: 'Norwegian Krone',
      precision: 2,
      customCode: null,
      customCurrencyId: null,
    });
  });
});
