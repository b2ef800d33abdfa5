// Figures as text, exact: amounts are integer strings of minor units (Int96), shifted by the
// currency's precision with string arithmetic, never through a JS number.

/** `-123456` at precision 2 → `-1,234.56`. */
export function formatAmount(minorUnits: string, precision: number): string {
  const negative = minorUnits.startsWith('-');
  const digits = (negative ? minorUnits.slice(1) : minorUnits).replace(/^0+(?=\d)/, '');
  const padded = digits.padStart(precision + 1, '0');
  const whole = padded.slice(0, padded.length - precision);
  const fraction = padded.slice(padded.length - precision);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative && /[1-9]/.test(digits) ? '-' : ''}${grouped}${precision ? `.${fraction}` : ''}`;
}

export type CurrencyRef = { code: string; precision: number; customCurrencyId?: string | null };

export function formatMoney(minorUnits: string, currency: CurrencyRef): string {
  return `${formatAmount(minorUnits, currency.precision)} ${currency.customCurrencyId ?? currency.code}`;
}

/** An RFC 3339 instant shown in UTC, to the second, as stored (no local-time guessing). */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso
    .replace('T', ' ')
    .replace(/\.\d+/, '')
    .replace(/Z$|\+00:00$/, ' UTC');
}
