// A few lines in place of a framework: elements built from data, text always set as text (never
// parsed as HTML), so a tag value or description cannot inject markup.

export type Child = Node | string | number | null | undefined | false | Child[];
type Props = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** A table from a header row and data rows; `caption` names it for screen readers. */
export function table(caption: string, head: string[], rows: Child[][], props: Props = {}): HTMLTableElement {
  return h(
    'table',
    props,
    h('caption', null, caption),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        head.map((cell) => h('th', { scope: 'col' }, cell)),
      ),
    ),
    h(
      'tbody',
      null,
      rows.length
        ? rows.map((row) =>
            h(
              'tr',
              null,
              row.map((cell) => h('td', null, cell)),
            ),
          )
        : h('tr', null, h('td', { colspan: head.length, class: 'empty' }, 'None')),
    ),
  );
}
