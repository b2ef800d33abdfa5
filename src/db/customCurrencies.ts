import type { PageRequest } from '../core/pagination.js';
import { newestFirst } from './keyset.js';
import type { Db } from './sql.js';

export type CustomCurrencyRow = {
  workspaceId: string;
  id: string;
  customCode: string;
  name: string;
  precision: number;
  created: Date;
};

const columns = (db: Db) =>
  db`workspace_id as "workspaceId", id, custom_code as "customCode", name, precision, created`;

/** Inserts the currency unless its id is taken; returns the row only when it inserted. */
export async function insertCustomCurrency(
  db: Db,
  row: Omit<CustomCurrencyRow, 'created'>,
): Promise<CustomCurrencyRow | undefined> {
  const [inserted] = await db<CustomCurrencyRow[]>`
    /* insertCustomCurrency */
    insert into ledger_custom_currencies (workspace_id, id, custom_code, name, precision)
    values (${row.workspaceId}, ${row.id}, ${row.customCode}, ${row.name}, ${row.precision})
    on conflict (workspace_id, id) do nothing
    returning ${columns(db)}`;
  return inserted;
}

export async function findCustomCurrencies(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<CustomCurrencyRow[]> {
  return db<CustomCurrencyRow[]>`
    /* findCustomCurrencies */
    select ${columns(db)} from ledger_custom_currencies where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

/** Custom currencies, newest first, one keyset page (plus one row). */
export async function pageCustomCurrencies(
  db: Db,
  workspaceId: string,
  page: PageRequest,
): Promise<CustomCurrencyRow[]> {
  const { boundary, order } = newestFirst(db, page);
  return db<CustomCurrencyRow[]>`
    /* pageCustomCurrencies */
    select ${columns(db)} from ledger_custom_currencies where workspace_id = ${workspaceId} ${boundary}
    order by ${order} limit ${page.size + 1}`;
}
