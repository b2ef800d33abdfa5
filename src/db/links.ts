import type { ProviderEnv } from '../../generated/ledger.js';
import type { PageRequest } from '../core/pagination.js';
import { newestFirst } from './keyset.js';
import type { Db } from './sql.js';

// Links to external systems and their external accounts.

export type LinkRow = {
  workspaceId: string;
  id: string;
  ik: string;
  name: string;
  kind: 'custom' | 'provider';
  providerEnv: ProviderEnv | null;
  requestHash: string;
  created: Date;
};
export type ExternalAccountRow = {
  workspaceId: string;
  id: string;
  linkId: string;
  externalId: string;
  name: string;
  currencyMode: 'single' | 'multi';
  currency: string | null;
  created: Date;
};

const linkColumns = (db: Db) => db`
  workspace_id as "workspaceId", id, ik, name, kind, provider_env as "providerEnv", request_hash as "requestHash", created`;
export const externalAccountColumns = (db: Db, a = 'ledger_external_accounts') => db`
  ${db(`${a}.workspace_id`)} as "workspaceId", ${db(`${a}.id`)}, ${db(`${a}.link_id`)} as "linkId",
  ${db(`${a}.external_id`)} as "externalId", ${db(`${a}.name`)}, ${db(`${a}.currency_mode`)} as "currencyMode",
  ${db(`${a}.currency`)}, ${db(`${a}.created`)}`;

/** Inserts the link unless its ik is taken; returns the row only when it inserted. */
export async function insertLink(
  db: Db,
  row: Omit<LinkRow, 'created' | 'kind' | 'providerEnv'>,
): Promise<LinkRow | undefined> {
  const [inserted] = await db<LinkRow[]>`
    /* insertLink */
    insert into ledger_links (workspace_id, id, ik, name, request_hash)
    values (${row.workspaceId}, ${row.id}, ${row.ik}, ${row.name}, ${row.requestHash})
    on conflict (workspace_id, ik) do nothing
    returning ${linkColumns(db)}`;
  return inserted;
}

export async function findLink(
  db: Db,
  workspaceId: string,
  match: { id?: string; ik?: string },
): Promise<LinkRow | undefined> {
  const [row] = await db<LinkRow[]>`
    /* findLink */
    select ${linkColumns(db)} from ledger_links
    where workspace_id = ${workspaceId}
      ${match.id !== undefined ? db`and id = ${match.id}` : db``}
      ${match.ik !== undefined ? db`and ik = ${match.ik}` : db``}`;
  return row;
}

export async function findLinksById(db: Db, workspaceId: string, ids: readonly string[]): Promise<LinkRow[]> {
  return db<LinkRow[]>`
    /* findLinksById */
    select ${linkColumns(db)} from ledger_links where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

/** Links, newest first, one keyset page (plus one row). */
export async function pageLinks(db: Db, workspaceId: string, page: PageRequest): Promise<LinkRow[]> {
  const { boundary, order } = newestFirst(db, page);
  return db<LinkRow[]>`
    /* pageLinks */
    select ${linkColumns(db)} from ledger_links where workspace_id = ${workspaceId} ${boundary}
    order by ${order} limit ${page.size + 1}`;
}

export type ExternalAccountMatch = { id?: string; linkId?: string; externalId?: string };

export async function findExternalAccount(
  db: Db,
  workspaceId: string,
  match: ExternalAccountMatch,
): Promise<ExternalAccountRow | undefined> {
  const [row] = await db<ExternalAccountRow[]>`
    /* findExternalAccount */
    select ${externalAccountColumns(db)} from ledger_external_accounts
    where workspace_id = ${workspaceId}
      ${match.id !== undefined ? db`and id = ${match.id}` : db``}
      ${match.linkId !== undefined ? db`and link_id = ${match.linkId}` : db``}
      ${match.externalId !== undefined ? db`and external_id = ${match.externalId}` : db``}
    limit 1`;
  return row;
}

export async function findExternalAccountsById(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<ExternalAccountRow[]> {
  return db<ExternalAccountRow[]>`
    /* findExternalAccountsById */
    select ${externalAccountColumns(db)} from ledger_external_accounts where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

/** The link's accounts with these external ids, locked: a sync updates them in turn. */
export async function lockExternalAccounts(
  db: Db,
  workspaceId: string,
  linkId: string,
  externalIds: readonly string[],
): Promise<ExternalAccountRow[]> {
  return db<ExternalAccountRow[]>`
    /* lockExternalAccounts */
    select ${externalAccountColumns(db)} from ledger_external_accounts
    where workspace_id = ${workspaceId} and link_id = ${linkId} and external_id = any(${externalIds as string[]}::text[])
    order by id for update`;
}

/** Inserts or renames accounts by external id; currencies are compared by the caller first. */
export async function upsertExternalAccounts(
  db: Db,
  rows: readonly Omit<ExternalAccountRow, 'created'>[],
): Promise<ExternalAccountRow[]> {
  const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((row) => row[key]) as string[];
  return db<ExternalAccountRow[]>`
    /* upsertExternalAccounts */
    insert into ledger_external_accounts as a (workspace_id, id, link_id, external_id, name, currency_mode, currency)
    select * from unnest(${column('workspaceId')}::text[], ${column('id')}::text[], ${column('linkId')}::text[], ${column('externalId')}::text[],
                         ${column('name')}::text[], ${column('currencyMode')}::text[], ${column('currency')}::text[])
    on conflict (workspace_id, link_id, external_id) do update set name = excluded.name
    returning ${externalAccountColumns(db, 'a')}`;
}

/** A link's external accounts, newest first, one keyset page (plus one row). */
export async function pageExternalAccounts(
  db: Db,
  workspaceId: string,
  linkId: string,
  page: PageRequest,
): Promise<ExternalAccountRow[]> {
  const { boundary, order } = newestFirst(db, page);
  return db<ExternalAccountRow[]>`
    /* pageExternalAccounts */
    select ${externalAccountColumns(db)} from ledger_external_accounts
    where workspace_id = ${workspaceId} and link_id = ${linkId} ${boundary}
    order by ${order} limit ${page.size + 1}`;
}
