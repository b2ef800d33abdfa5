// Pages live at real paths (`dashboardUrl` points at them), so links change the history instead
// of reloading, and the back button walks the pages.

import { matchPage, pagePath, type PageRef } from '../pages.js';
import { basePath } from './basePath.js';
import { h, type Child } from './dom.js';

let onChange: () => void = () => undefined;

export function startRouter(render: () => void): void {
  onChange = render;
  window.addEventListener('popstate', render);
}

export function currentPage(): PageRef | undefined {
  const path = location.pathname;
  return path.startsWith(basePath) ? matchPage(path.slice(basePath.length)) : undefined;
}

/** A link to a dashboard page; a plain click stays in the page, a modified one opens a tab as usual. */
export function link(ref: PageRef, ...children: Child[]): HTMLAnchorElement {
  return linkWithQuery(ref, undefined, false, ...children);
}

/** A link to a page with query parameters (a filter, a series); `current` marks the one shown. */
export function linkWithQuery(
  ref: PageRef,
  query: URLSearchParams | undefined,
  current: boolean,
  ...children: Child[]
): HTMLAnchorElement {
  const href = basePath + pagePath(ref) + (query?.size ? `?${query}` : '');
  return h(
    'a',
    {
      href,
      'aria-current': current && 'page',
      onclick: (event) => {
        const click = event as MouseEvent;
        if (click.button !== 0 || click.metaKey || click.ctrlKey || click.shiftKey || click.altKey) return;
        event.preventDefault();
        history.pushState(null, '', href);
        onChange();
      },
    },
    ...children,
  );
}

/** The page's query string, read as parameters (filters, cursors). */
export function searchParam(name: string): string | undefined {
  return new URLSearchParams(location.search).get(name) ?? undefined;
}
