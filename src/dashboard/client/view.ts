// Pieces several pages show the same way.

import { h, type Child } from './dom.js';
import { formatMoney, type CurrencyRef } from './format.js';

/** Thrown by a page whose object the signed-in client cannot see (absent, or another workspace's). */
export class NotFound extends Error {}

export function found<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new NotFound(`${what} not found`);
  return value;
}

export type Amount = { amount: string; currency: CurrencyRef };

/** One amount as text, carrying its exact minor units (`data-amount`) and, when named, `data-figure`. */
export function amountElement(minorUnits: string, text: string, figure?: string): HTMLElement {
  return h(
    'span',
    {
      class: minorUnits.startsWith('-') ? 'amount negative' : 'amount',
      'data-figure': figure,
      'data-amount': minorUnits,
    },
    text,
  );
}

/** Amounts per currency, one per line; `figure` names them for tests and scripts (`data-figure`). */
export function amounts(list: Amount[], figure?: string): Child {
  if (!list.length) return h('span', { class: 'muted' }, '0');
  return h(
    'span',
    { class: 'amounts' },
    list.map((item) =>
      amountElement(
        item.amount,
        formatMoney(item.amount, item.currency),
        figure && `${figure}:${item.currency.customCurrencyId ?? item.currency.code}`,
      ),
    ),
  );
}

export function heading(kind: string, title: Child, ...extra: Child[]): HTMLElement {
  return h('header', { class: 'page-head' }, h('p', { class: 'kind' }, kind), h('h1', null, title), ...extra);
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', null, h('h2', null, title), ...children);
}

export const code = (text: string | null | undefined): Child => (text ? h('code', null, text) : null);

export function tags(list: { key: string; value: string }[]): Child {
  if (!list.length) return h('span', { class: 'muted' }, 'none');
  return list.map((tag) => h('span', { class: 'tag' }, `${tag.key}: ${tag.value}`));
}

/** A definition list of label/value pairs, skipping absent values. */
export function facts(pairs: [string, Child][]): HTMLDListElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([label, value]) => [h('dt', null, label), h('dd', null, value)]),
  );
}
