// Display facts of built-in currencies from the runtime's ICU data (English names, CLDR's minor-unit
// digits, which for a few codes such as IQD or HUF differ from ISO 4217's: precision is for display
// only), so no table of 179 currencies is kept by hand. Codes ICU does not know (USDC, LOGICAL, any
// code that is not three letters) keep their code as name and 2 digits.

const names = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'code' });
const cache = new Map<string, Currency>();

export type Currency = { code: string; name: string; precision: number; customCode: null; customCurrencyId: null };

export function builtInCurrency(code: string): Currency {
  let currency = cache.get(code);
  if (!currency) {
    let precision = 2;
    let name = code;
    // Intl throws a RangeError for a code that is not three letters.
    try {
      precision =
        new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
      name = names.of(code) ?? code;
    } catch {
      // not an ISO 4217 code ICU knows
    }
    currency = { code, name, precision, customCode: null, customCurrencyId: null };
    cache.set(code, currency);
  }
  return currency;
}
