import type { CurrencyCode, CurrencyResolvers } from '../../../generated/ledger.js';
import { builtInCurrency } from '../../core/currencies.js';
import { customCurrencyIdOf } from '../../core/currencyKeys.js';
import type { GqlContext } from '../context.js';

// A Currency is resolved from its stored key: built-in facts come from ICU, a custom
// currency's from its row, loaded once per request for every amount that names it.

const customRow = async (id: string, { load }: GqlContext) => load.customCurrency.load(id);

export const Currency: CurrencyResolvers = {
  // Currency keys are typed string (no CurrencyKey type through the rows yet): a built-in key goes out
  // as the CurrencyCode enum, and graphql-js checks it against the enum when serializing.
  code: (key) => (customCurrencyIdOf(key) === null ? (key as CurrencyCode) : 'CUSTOM'),
  customCurrencyId: (key) => customCurrencyIdOf(key),
  customCode: async (key, _args, ctx) => {
    const id = customCurrencyIdOf(key);
    return id === null ? null : ((await customRow(id, ctx))?.customCode ?? id);
  },
  name: async (key, _args, ctx) => {
    const id = customCurrencyIdOf(key);
    return id === null ? builtInCurrency(key).name : ((await customRow(id, ctx))?.name ?? id);
  },
  precision: async (key, _args, ctx) => {
    const id = customCurrencyIdOf(key);
    return id === null ? builtInCurrency(key).precision : ((await customRow(id, ctx))?.precision ?? 0);
  },
};
