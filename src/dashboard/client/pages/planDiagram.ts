// A payment plan drawn as its batches, in columns by how many batches must complete before each,
// with an arrow from every batch to the batches that wait for it.

import type { PaymentBatch } from '../billingTypes.js';

const SVG = 'http://www.w3.org/2000/svg';
const BOX = { width: 220, height: 64, gapX: 80, gapY: 24, pad: 12 };

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

const payments = (batch: PaymentBatch) =>
  batch.payments.length === 1 ? '1 payment' : `${batch.payments.length} payments`;

/** Each batch's column: 0 for a batch that waits on none, else one more than its deepest dependency. */
function columns(batches: PaymentBatch[]): Map<string, number> {
  const byId = new Map(batches.map((batch) => [batch.batch_id, batch]));
  const depth = new Map<string, number>();
  const visit = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0; // a cycle would be a server bug; draw it rather than loop
    seen.add(id);
    const deps = byId.get(id)?.depends_on.filter((dep) => byId.has(dep)) ?? [];
    const value = deps.length ? Math.max(...deps.map((dep) => visit(dep, seen))) + 1 : 0;
    depth.set(id, value);
    return value;
  };
  for (const batch of batches) visit(batch.batch_id, new Set());
  return depth;
}

export function planDiagram(batches: PaymentBatch[]): Element {
  if (!batches.length) {
    const empty = document.createElement('p');
    empty.className = 'muted';
    empty.textContent = 'The plan has no batches: nothing remains to collect or pay out.';
    return empty;
  }
  const column = columns(batches);
  const rows = new Map<number, number>();
  const place = new Map<string, { x: number; y: number }>();
  for (const batch of batches) {
    const col = column.get(batch.batch_id)!;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    place.set(batch.batch_id, {
      x: BOX.pad + col * (BOX.width + BOX.gapX),
      y: BOX.pad + row * (BOX.height + BOX.gapY),
    });
  }
  const width = BOX.pad * 2 + (Math.max(...column.values()) + 1) * (BOX.width + BOX.gapX) - BOX.gapX;
  const height = BOX.pad * 2 + Math.max(...rows.values()) * (BOX.height + BOX.gapY) - BOX.gapY;
  const description = batches
    .map(
      (batch) =>
        `${batch.label} (${batch.status}, ${payments(batch)})` +
        (batch.depends_on.length ? ` after ${batch.depends_on.join(', ')}` : ''),
    )
    .join('; ');
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': description,
    class: 'plan',
  });
  const marker = svg('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 10,
    refY: 5,
    markerWidth: 8,
    markerHeight: 8,
    orient: 'auto',
  });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }));
  const defs = svg('defs', {});
  defs.append(marker);
  root.append(defs);
  for (const batch of batches) {
    const to = place.get(batch.batch_id)!;
    for (const dep of batch.depends_on) {
      const from = place.get(dep);
      if (!from) continue;
      root.append(
        svg('line', {
          x1: from.x + BOX.width,
          y1: from.y + BOX.height / 2,
          x2: to.x,
          y2: to.y + BOX.height / 2,
          class: 'dependency',
          'marker-end': 'url(#arrow)',
        }),
      );
    }
  }
  for (const batch of batches) {
    const { x, y } = place.get(batch.batch_id)!;
    const group = svg('g', { class: `batch batch-${batch.status}`, 'data-batch': batch.batch_id });
    group.append(
      svg('rect', { x, y, width: BOX.width, height: BOX.height, rx: 6 }),
      svg('text', { x: x + 10, y: y + 22, class: 'batch-label' }, batch.label),
      svg('text', { x: x + 10, y: y + 44 }, `${batch.batch_id} · ${batch.status} · ${payments(batch)}`),
    );
    root.append(group);
  }
  return root;
}
