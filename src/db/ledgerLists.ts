import type postgres from 'postgres';
import type { ListFilter, PairFilter, ValueFilter } from '../core/entryFilters.js';
import type { PageRequest } from '../core/pagination.js';
import { jsonb } from './json.js';
import { entryColumns, lineColumns, type LedgerEntryRow, type LedgerLineRow } from './ledgerEntries.js';
import type { Db } from './sql.js';

// Entry and line lists, newest `posted` first, one keyset page at a time. Cursors carry the
// exact posted instant in microseconds, so entries posted within one millisecond never repeat
// or vanish between pages.

export type EntryListFilter = ListFilter & {
  ledgerId: string;
  /** Entries with a line on this account. */
  accountId?: string;
  entryIds?: string[];
  entryIks?: string[];
  groups?: PairFilter;
  /** Entries with a line on an account at this chart path (template instances included). */
  accountChartPath?: string;
};

export type LineListFilter = ListFilter & {
  ledgerId: string;
  accountIds?: string[];
  /** Lines of accounts whose path is LIKE one of these patterns. */
  pathPatterns?: string[];
  currencies?: string[];
  keys?: ValueFilter;
  directions?: ('debit' | 'credit')[];
};

export type Positioned<T> = T & { postedMicros: string };

/** An instant as microseconds since the epoch, the exact text a posted-time cursor holds. */
export const micros = (column: string, db: Db) => db`(extract(epoch from ${db(column)}) * 1000000)::bigint::text`;
const instant = (value: string, db: Db) => db`('epoch'::timestamptz + (${value} || ' microseconds')::interval)`;

/** The keyset condition of a page ordered by (posted, id); a tampered instant matches nothing. */
export function postedBoundary(db: Db, page: PageRequest, postedColumn: string, idColumn: string) {
  if (!page.cursor) return db``;
  const [posted, id] = page.cursor;
  if (!/^-?\d{1,20}$/.test(posted)) return db`and false`;
  return page.backward
    ? db`and (${db(postedColumn)}, ${db(idColumn)}) > (${instant(posted, db)}, ${id})`
    : db`and (${db(postedColumn)}, ${db(idColumn)}) < (${instant(posted, db)}, ${id})`;
}

function pairConditions(db: Db, column: string, filter: PairFilter | undefined) {
  if (!filter) return db``;
  const col = db(column);
  // `<> '[]'` beside a containment lets the planner use the entries' partial GIN indexes.
  // Each candidate is one pair (or bare key) the column must contain; the list travels as one jsonb.
  const anyContained = (pairs: { key: string; value?: string }[]) =>
    db`exists (select 1 from jsonb_array_elements(${jsonb(db, pairs)}) candidate where ${col} @> jsonb_build_array(candidate))`;
  return db`
    ${filter.anyOf ? db`and ${anyContained(filter.anyOf)}` : db``}
    ${filter.allOf?.length ? db`and ${col} @> ${jsonb(db, filter.allOf)} and ${col} <> '[]'::jsonb` : db``}
    ${filter.noneOf?.length ? db`and not ${anyContained(filter.noneOf)}` : db``}
    ${filter.anyKey ? db`and ${anyContained(filter.anyKey.map((key) => ({ key })))}` : db``}
    ${filter.noKey?.length ? db`and not ${anyContained(filter.noKey.map((key) => ({ key })))}` : db``}
    ${
      filter.contains
        ? db`and exists (select 1 from jsonb_array_elements(${col}) pair
        where pair->>'key' = ${filter.contains.key} and strpos(pair->>'value', ${filter.contains.value}) > 0)`
        : db``
    }`;
}

function valueConditions(db: Db, column: postgres.PendingQuery<postgres.Row[]>, filter: ValueFilter | undefined) {
  if (!filter) return db``;
  return db`
    ${filter.anyOf ? db`and ${column} = any(${filter.anyOf}::text[])` : db``}
    ${filter.noneOf ? db`and (${column} is null or not (${column} = any(${filter.noneOf}::text[])))` : db``}`;
}

/** Conditions shared by entries (alias e) and lines (their entry, alias e; posted from `postedColumn`). */
function commonConditions(db: Db, filter: ListFilter, postedColumn: string, createdColumn: string) {
  return db`
    ${filter.showHidden ? db`` : db`and e.reverses_id is null and e.reversed_by_id is null`}
    ${filter.isReversal === undefined ? db`` : filter.isReversal ? db`and e.reverses_id is not null` : db`and e.reverses_id is null`}
    ${filter.isReversed === undefined ? db`` : filter.isReversed ? db`and e.reversed_by_id is not null` : db`and e.reversed_by_id is null`}
    ${filter.postedAfter ? db`and ${db(postedColumn)} > ${filter.postedAfter}` : db``}
    ${filter.postedBefore ? db`and ${db(postedColumn)} < ${filter.postedBefore}` : db``}
    ${filter.createdAfter ? db`and ${db(createdColumn)} > ${filter.createdAfter}` : db``}
    ${filter.createdBefore ? db`and ${db(createdColumn)} < ${filter.createdBefore}` : db``}
    ${filter.postedIn.reduce(
      (all, ranges) =>
        db`${all} and (${ranges.reduce(
          (any, range, index) =>
            db`${any} ${index > 0 ? db`or` : db``} (${db(postedColumn)} >= ${range.from} and ${db(postedColumn)} < ${range.to})`,
          db``,
        )})`,
      db``,
    )}`;
}

export async function pageEntries(
  db: Db,
  workspaceId: string,
  filter: EntryListFilter,
  page: PageRequest,
): Promise<Positioned<LedgerEntryRow>[]> {
  return db<Positioned<LedgerEntryRow>[]>`
    /* pageEntries */
    select ${entryColumns(db, 'e')}, ${micros('e.posted', db)} as "postedMicros"
    from ledger_entries e
    where e.workspace_id = ${workspaceId} and e.ledger_id = ${filter.ledgerId}
      ${
        filter.accountId
          ? db`and exists (select 1 from ledger_lines l
        where l.workspace_id = e.workspace_id and l.entry_id = e.id and l.account_id = ${filter.accountId})`
          : db``
      }
      ${filter.entryIds ? db`and e.id = any(${filter.entryIds}::text[])` : db``}
      ${filter.entryIks ? db`and e.ik = any(${filter.entryIks}::text[])` : db``}
      ${
        filter.accountChartPath
          ? db`and exists (select 1 from ledger_lines l join ledger_accounts a on a.workspace_id = l.workspace_id and a.id = l.account_id
        where l.workspace_id = e.workspace_id and l.entry_id = e.id and a.path ~ chart_path_pattern(${filter.accountChartPath}))`
          : db``
      }
      ${commonConditions(db, filter, 'e.posted', 'e.created')}
      ${pairConditions(db, 'e.tags', filter.tags)}
      ${pairConditions(db, 'e.groups', filter.groups)}
      ${valueConditions(db, db`e.type`, filter.types)}
      ${valueConditions(db, db`e.type_version::text`, filter.typeVersions)}
      ${postedBoundary(db, page, 'e.posted', 'e.id')}
    order by ${page.backward ? db`e.posted asc, e.id asc` : db`e.posted desc, e.id desc`}
    limit ${page.size + 1}`;
}

export async function pageLines(
  db: Db,
  workspaceId: string,
  filter: LineListFilter,
  page: PageRequest,
): Promise<Positioned<LedgerLineRow>[]> {
  return db<Positioned<LedgerLineRow>[]>`
    /* pageLines */
    select ${lineColumns(db, 'l')}, ${micros('l.posted', db)} as "postedMicros"
    from ledger_lines l
    join ledger_entries e on e.workspace_id = l.workspace_id and e.id = l.entry_id
    ${filter.pathPatterns || filter.directions ? db`join ledger_accounts a on a.workspace_id = l.workspace_id and a.id = l.account_id` : db``}
    where l.workspace_id = ${workspaceId} and l.ledger_id = ${filter.ledgerId}
      ${filter.accountIds ? db`and l.account_id = any(${filter.accountIds}::text[])` : db``}
      ${filter.pathPatterns ? db`and a.path like any(${filter.pathPatterns}::text[])` : db``}
      ${filter.currencies ? db`and l.currency = any(${filter.currencies}::text[])` : db``}
      ${
        filter.directions
          ? db`and (case when (a.type in ('asset', 'expense')) = (l.amount >= 0) then 'debit' else 'credit' end)
        = any(${filter.directions}::text[])`
          : db``
      }
      ${valueConditions(db, db`l.key`, filter.keys)}
      ${commonConditions(db, filter, 'l.posted', 'l.created')}
      ${pairConditions(db, 'l.tags', filter.tags)}
      ${postedBoundary(db, page, 'l.posted', 'l.id')}
    order by ${page.backward ? db`l.posted asc, l.id asc` : db`l.posted desc, l.id desc`}
    limit ${page.size + 1}`;
}

/** Every entry sharing an ik in a ledger: the original, its reversals and reposts, oldest first. */
export async function pageEntryHistory(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  ik: string,
  page: PageRequest,
): Promise<LedgerEntryRow[]> {
  const [position] = page.cursor ?? [];
  const after =
    position === undefined || !/^\d{1,9}$/.test(position)
      ? db``
      : page.backward
        ? db`and e.reversal_position < ${Number(position)}`
        : db`and e.reversal_position > ${Number(position)}`;
  return db<LedgerEntryRow[]>`
    /* pageEntryHistory */
    select ${entryColumns(db, 'e')} from ledger_entries e
    where e.workspace_id = ${workspaceId} and e.ledger_id = ${ledgerId} and e.ik = ${ik} ${after}
    order by e.reversal_position ${page.backward ? db`desc` : db`asc`}
    limit ${page.size + 1}`;
}
