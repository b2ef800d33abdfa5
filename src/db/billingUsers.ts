import { newId } from '../core/ids.js';
import type { Db } from './sql.js';

export type BillingUser = { id: string; externalId: string };

/** Users by the caller's external id, created on first reference (in sorted order: concurrent creators never deadlock). */
export async function ensureUsers(
  db: Db,
  workspaceId: string,
  externalIds: readonly string[],
): Promise<Map<string, BillingUser>> {
  const wanted = [...new Set(externalIds)].sort();
  if (wanted.length === 0) return new Map();
  // One round trip: the rows this statement inserts, and (from its snapshot) those that existed.
  const rows = await db<BillingUser[]>`
    /* ensureUsersByExternalId */
    with inserted as (
      insert into billing_users (workspace_id, id, external_id)
      select ${workspaceId}, t.id, t.external_id from unnest(${wanted.map(() => newId('user'))}::text[], ${wanted}::text[]) as t(id, external_id)
      order by t.external_id
      on conflict (workspace_id, external_id) do nothing
      returning id, external_id
    )
    select id, external_id as "externalId" from inserted
    union all
    select id, external_id from billing_users where workspace_id = ${workspaceId} and external_id = any(${wanted}::text[])`;
  if (rows.length < wanted.length) {
    // A concurrent request created some of them after this statement's snapshot: read again.
    return new Map(
      (
        await db<BillingUser[]>`
      /* findUsersByExternalId */
      select id, external_id as "externalId" from billing_users where workspace_id = ${workspaceId} and external_id = any(${wanted}::text[])`
      ).map((row) => [row.externalId, row]),
    );
  }
  return new Map(rows.map((row) => [row.externalId, row]));
}

export async function findUsersById(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<Map<string, BillingUser>> {
  if (ids.length === 0) return new Map();
  const rows = await db<BillingUser[]>`
    /* findUsersById */
    select id, external_id as "externalId" from billing_users where workspace_id = ${workspaceId} and id = any(${[...new Set(ids)]}::text[])`;
  return new Map(rows.map((row) => [row.id, row]));
}
