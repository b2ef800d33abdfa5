import type { PageRequest } from '../core/pagination.js';
import type { Db } from './sql.js';

/**
 * The boundary and order of a newest-first list keyed by (created, id), the cursor of every
 * such list: rows after the cursor going forward, before it going backward.
 */
export function newestFirst(db: Db, page: PageRequest) {
  const [created, id] = page.cursor ?? [];
  return {
    boundary:
      page.cursor === undefined
        ? db``
        : page.backward
          ? db`and (created, id) > (${created}::timestamptz, ${id})`
          : db`and (created, id) < (${created}::timestamptz, ${id})`,
    order: page.backward ? db`created asc, id asc` : db`created desc, id desc`,
  };
}
