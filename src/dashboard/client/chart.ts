// Balance over time as a chart (uPlot: 50 kB, no dependencies, bundled into the dashboard's
// script, so it works offline) and the same figures as a table, which is what screen readers and
// copy-paste get. Amounts reach the chart as floats only to place pixels; every figure shown as
// text (legend, table, summary) is the exact string the API answered.

import uPlot from 'uplot';
import { h, table } from './dom.js';
import { formatAmount, formatMoney, type CurrencyRef } from './format.js';

export type ChartPoint = { label: string; balance: string; change: string };

/** The chart's y value of an amount in minor units; drawing precision only. */
const plotValue = (minorUnits: string, precision: number) => Number(minorUnits) / 10 ** precision;

export function balanceChart(title: string, points: ChartPoint[], currency: CurrencyRef): HTMLElement {
  const last = points.at(-1);
  const summary = last
    ? `${title}: ${points.length} points from ${points[0].label} to ${last.label}, last ${formatMoney(last.balance, currency)}`
    : `${title}: no points`;
  const plot = h('div', { class: 'chart-plot', role: 'img', 'aria-label': summary });
  // Exact, in bigint: the sum of the periods' changes over the span shown.
  const spanChange = points.reduce((sum, point) => sum + BigInt(point.change), 0n).toString();
  const figure = h(
    'figure',
    {
      class: 'chart',
      'data-points': points.length,
      'data-last': last?.balance,
      'data-currency': currency.customCurrencyId ?? currency.code,
    },
    h('figcaption', null, summary),
    h(
      'p',
      { class: 'span-change' },
      'Change over the span: ',
      h('span', { 'data-figure': 'span-change', 'data-amount': spanChange }, formatMoney(spanChange, currency)),
    ),
    plot,
    h(
      'details',
      null,
      h('summary', null, 'The figures as a table'),
      table(
        title,
        ['Period', 'Balance at the end', 'Change in the period'],
        points.map((point) => [
          point.label,
          formatAmount(point.balance, currency.precision),
          formatAmount(point.change, currency.precision),
        ]),
        { class: 'series' },
      ),
    ),
  );
  const xs = points.map((_, i) => i);
  const ys = points.map((point) => plotValue(point.balance, currency.precision));
  new uPlot(
    {
      width: Math.max(320, Math.min(960, window.innerWidth - 80)),
      height: 280,
      scales: { x: { time: false } },
      series: [
        { label: 'Period', value: (_u, _v, _s, i) => (i === null ? '—' : points[i].label) },
        {
          label: `Balance (${currency.customCurrencyId ?? currency.code})`,
          stroke: '#2563eb',
          fill: 'rgba(37, 99, 235, 0.08)',
          width: 2,
          value: (_u, _v, _s, i) => (i === null ? '—' : formatAmount(points[i].balance, currency.precision)),
        },
      ],
      axes: [
        { values: (_u, splits) => splits.map((split) => points[Math.round(split)]?.label ?? '') },
        { size: 80, values: (_u, splits) => splits.map((split) => compact(split)) },
      ],
    },
    [xs, ys],
    plot,
  );
  return figure;
}

/** Axis marks: a scale, not figures, so a few significant digits. */
const compact = (value: number) => value.toLocaleString('en', { maximumSignificantDigits: 6 });
