import type postgres from 'postgres';
import type { PageRequest } from '../core/pagination.js';
import { jsonb } from './json.js';
import type { Db } from './sql.js';

// Entry groups are the distinct {key, value} pairs of a ledger's entries; a group's balances
// are the sums of its entries' lines per account and currency, computed from the lines.

export type GroupRow = { workspaceId: string; ledgerId: string; key: string; value: string; created: Date | null };
export type GroupBalanceRow = { accountId: string; path: string; currency: string; amount: string };

export type GroupFilter = {
  keys?: { anyOf?: string[]; noneOf?: string[] };
  values?: { anyOf?: string[]; noneOf?: string[] };
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only groups with a balance meeting all of these (accounts by id or LIKE path pattern). */
  balance?: {
    accountIds?: string[];
    pathPatterns?: string[];
    currencies?: string[];
    amount?: { eq?: string; gte?: string; lte?: string; ne?: string };
  };
};

const groupsOf = (db: Db, workspaceId: string, ledgerId: string) => db`
  select ${workspaceId}::text as "workspaceId", ${ledgerId}::text as "ledgerId", g->>'key' as key, g->>'value' as value,
         min(e.created) as created
  from ledger_entries e cross join jsonb_array_elements(e.groups) g
  where e.workspace_id = ${workspaceId} and e.ledger_id = ${ledgerId} and e.groups <> '[]'
  group by g->>'key', g->>'value'`;

export async function findGroup(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  key: string,
  value: string,
): Promise<GroupRow | undefined> {
  const [row] = await db<GroupRow[]>`
    /* findGroup */
    select ${workspaceId}::text as "workspaceId", ${ledgerId}::text as "ledgerId", ${key}::text as key, ${value}::text as value,
           min(created) as created
    from ledger_entries
    where workspace_id = ${workspaceId} and ledger_id = ${ledgerId} and groups @> ${jsonb(db, [{ key, value }])}
      and groups <> '[]'::jsonb -- the predicate of the partial GIN index on groups
    having count(*) > 0`;
  return row;
}

function balanceSums(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  key: postgres.PendingQuery<postgres.Row[]>,
  value: postgres.PendingQuery<postgres.Row[]>,
) {
  return db`
    select l.account_id as "accountId", a.path, l.currency, sum(l.amount) as amount
    from ledger_entries e
    join ledger_lines l on l.workspace_id = e.workspace_id and l.entry_id = e.id
    join ledger_accounts a on a.workspace_id = l.workspace_id and a.id = l.account_id
    where e.workspace_id = ${workspaceId} and e.ledger_id = ${ledgerId}
      and e.groups @> jsonb_build_array(jsonb_build_object('key', ${key}, 'value', ${value})) and e.groups <> '[]'::jsonb
    group by l.account_id, a.path, l.currency`;
}

/** Groups by key, then newest first, one keyset page (plus one row). */
export async function pageGroups(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  filter: GroupFilter,
  page: PageRequest,
): Promise<GroupRow[]> {
  const [key, created, value] = page.cursor ?? [];
  const boundary =
    page.cursor === undefined
      ? db``
      : page.backward
        ? db`and (g.key < ${key} or (g.key = ${key} and (g.created, g.value) > (${created}::timestamptz, ${value})))`
        : db`and (g.key > ${key} or (g.key = ${key} and (g.created, g.value) < (${created}::timestamptz, ${value})))`;
  const balance = filter.balance;
  return db<GroupRow[]>`
    /* pageGroups */
    select g.* from (${groupsOf(db, workspaceId, ledgerId)}) g
    where true
      ${filter.keys?.anyOf ? db`and g.key = any(${filter.keys.anyOf}::text[])` : db``}
      ${filter.keys?.noneOf ? db`and not (g.key = any(${filter.keys.noneOf}::text[]))` : db``}
      ${filter.values?.anyOf ? db`and g.value = any(${filter.values.anyOf}::text[])` : db``}
      ${filter.values?.noneOf ? db`and not (g.value = any(${filter.values.noneOf}::text[]))` : db``}
      ${filter.createdAfter ? db`and g.created > ${filter.createdAfter}` : db``}
      ${filter.createdBefore ? db`and g.created < ${filter.createdBefore}` : db``}
      ${
        balance
          ? db`and exists (select 1 from (${balanceSums(db, workspaceId, ledgerId, db`g.key`, db`g.value`)}) s
        where true
          ${balance.accountIds ? db`and s."accountId" = any(${balance.accountIds}::text[])` : db``}
          ${balance.pathPatterns ? db`and s.path like any(${balance.pathPatterns}::text[])` : db``}
          ${balance.currencies ? db`and s.currency = any(${balance.currencies}::text[])` : db``}
          ${balance.amount?.eq != null ? db`and s.amount = ${balance.amount.eq}::numeric` : db``}
          ${balance.amount?.ne != null ? db`and s.amount <> ${balance.amount.ne}::numeric` : db``}
          ${balance.amount?.gte != null ? db`and s.amount >= ${balance.amount.gte}::numeric` : db``}
          ${balance.amount?.lte != null ? db`and s.amount <= ${balance.amount.lte}::numeric` : db``})`
          : db``
      }
      ${boundary}
    order by ${page.backward ? db`g.key desc, g.created asc, g.value asc` : db`g.key asc, g.created desc, g.value desc`}
    limit ${page.size + 1}`;
}

/** One group's balances by account path, then currency, one keyset page (plus one row). */
export async function pageGroupBalances(
  db: Db,
  workspaceId: string,
  ledgerId: string,
  key: string,
  value: string,
  filter: NonNullable<GroupFilter['balance']>,
  page: PageRequest,
): Promise<GroupBalanceRow[]> {
  const [path, currency] = page.cursor ?? [];
  const boundary =
    page.cursor === undefined
      ? db``
      : page.backward
        ? db`and (s.path, s.currency) < (${path}, ${currency})`
        : db`and (s.path, s.currency) > (${path}, ${currency})`;
  return db<GroupBalanceRow[]>`
    /* pageGroupBalances */
    select s."accountId", s.path, s.currency, s.amount::text as amount
    from (${balanceSums(db, workspaceId, ledgerId, db`${key}::text`, db`${value}::text`)}) s
    where true
      ${filter.accountIds ? db`and s."accountId" = any(${filter.accountIds}::text[])` : db``}
      ${filter.pathPatterns ? db`and s.path like any(${filter.pathPatterns}::text[])` : db``}
      ${filter.currencies ? db`and s.currency = any(${filter.currencies}::text[])` : db``}
      ${filter.amount?.eq != null ? db`and s.amount = ${filter.amount.eq}::numeric` : db``}
      ${filter.amount?.ne != null ? db`and s.amount <> ${filter.amount.ne}::numeric` : db``}
      ${filter.amount?.gte != null ? db`and s.amount >= ${filter.amount.gte}::numeric` : db``}
      ${filter.amount?.lte != null ? db`and s.amount <= ${filter.amount.lte}::numeric` : db``}
      ${boundary}
    order by ${page.backward ? db`s.path desc, s.currency desc` : db`s.path asc, s.currency asc`}
    limit ${page.size + 1}`;
}
