// Lists are read a page at a time: the first page on opening, the next on "Show more", so a page
// of the dashboard never asks for more than it shows.

import { h, type Child } from './dom.js';

export type Page<T> = { nodes: T[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };

type ListOptions<T> = { caption: string; head: string[]; row: (node: T) => Child[]; testId?: string };

/** A table with a "Show more" button; `show` appends rows and says whether more remain. */
function growingTable<T>(options: ListOptions<T>) {
  const body = h('tbody');
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Show more');
  const element = h(
    'div',
    { class: 'paged', 'data-list': options.testId },
    h(
      'table',
      null,
      h('caption', null, options.caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          options.head.map((cell) => h('th', { scope: 'col' }, cell)),
        ),
      ),
      body,
    ),
    more,
  );
  const show = (nodes: T[], hasMore: boolean) => {
    for (const node of nodes)
      body.append(
        h(
          'tr',
          null,
          options.row(node).map((cell) => h('td', null, cell)),
        ),
      );
    if (!body.childElementCount)
      body.append(h('tr', null, h('td', { colspan: options.head.length, class: 'empty' }, 'None')));
    more.hidden = !hasMore;
  };
  return { element, more, show };
}

/** A GraphQL connection, one page per click. */
export async function pagedTable<T>(
  options: ListOptions<T> & { load: (after: string | undefined) => Promise<Page<T>> },
): Promise<HTMLElement> {
  const list = growingTable(options);
  const showPage = async (after: string | undefined) => {
    list.more.disabled = true;
    const page = await options.load(after);
    list.show(page.nodes, page.pageInfo.hasNextPage);
    list.more.disabled = false;
    list.more.onclick = () => void showPage(page.pageInfo.endCursor ?? undefined);
  };
  await showPage(undefined);
  return list.element;
}

const STEP = 50;

/** Rows already in memory (billing's list operations answer everything at once), shown 50 at a time. */
export function shownInSteps<T>(options: ListOptions<T> & { rows: T[] }): HTMLElement {
  const list = growingTable(options);
  let shown = 0;
  const showNext = () => {
    list.show(options.rows.slice(shown, shown + STEP), shown + STEP < options.rows.length);
    shown += STEP;
  };
  list.more.onclick = showNext;
  showNext();
  return list.element;
}
