import { builtInCurrency } from '../../../core/currencies.js';
import { formatAmount } from '../format.js';
import { amountElement } from '../view.js';

/** A billing amount (minor units of an ISO currency) with the currency's digits; no code: plain minor units. */
export function billingAmount(minorUnits: string, currency: string, figure?: string): HTMLElement {
  const text = currency ? `${formatAmount(minorUnits, builtInCurrency(currency).precision)} ${currency}` : minorUnits;
  return amountElement(minorUnits, text, figure);
}
