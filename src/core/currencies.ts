// Display facts of built-in currencies from the runtime's ICU data (names in English, minor-unit
// digits from ISO 4217), so no table of 179 currencies is kept by hand. Codes ICU does not know
// keep their code as name and 2 digits.

const names = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'code' });
const cache = new Map<string, Currency>();

export type Currency = { code: string; name: string; precision: number; customCode: null; customCurrencyId: null };

export function builtInCurrency(code: string): Currency {
  let currency = cache.get(code);
  if (!currency) {
    let precision = 2;
    try {
      precision = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      // not an ISO 4217 code ICU knows
    }
    currency = { code, name: names.of(code) ?? code, precision, customCode: null, customCurrencyId: null };
    cache.set(code, currency);
  }
  return currency;
}
