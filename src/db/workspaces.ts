import { randomBytes } from 'node:crypto';
import type { Db } from './sql.js';

export type WorkspaceRow = { id: string; name: string; created: Date };
export type ClientRow = { clientId: string; workspaceId: string; secretHash: string; name: string };

export async function insertWorkspace(db: Db, id: string, name: string): Promise<WorkspaceRow> {
  const [row] = await db<WorkspaceRow[]>`
    /* insertWorkspace */
    insert into workspaces (id, name) values (${id}, ${name})
    returning id, name, created`;
  return row;
}

export async function findWorkspace(db: Db, id: string): Promise<WorkspaceRow | undefined> {
  const [row] = await db<WorkspaceRow[]>`
    /* findWorkspace */
    select id, name, created from workspaces where id = ${id}`;
  return row;
}

export async function listWorkspaces(db: Db): Promise<WorkspaceRow[]> {
  return db<WorkspaceRow[]>`/* listWorkspaces */ select id, name, created from workspaces order by created`;
}

export async function insertClient(db: Db, client: ClientRow): Promise<void> {
  await db`
    /* insertClient */
    insert into api_clients (client_id, workspace_id, secret_hash, name)
    values (${client.clientId}, ${client.workspaceId}, ${client.secretHash}, ${client.name})`;
}

export async function updateClientSecret(db: Db, clientId: string, secretHash: string): Promise<void> {
  await db`/* updateClientSecret */ update api_clients set secret_hash = ${secretHash} where client_id = ${clientId}`;
}

export async function findClient(db: Db, clientId: string): Promise<ClientRow | undefined> {
  const [row] = await db<ClientRow[]>`
    /* findClient */
    select client_id as "clientId", workspace_id as "workspaceId", secret_hash as "secretHash", name
    from api_clients where client_id = ${clientId}`;
  return row;
}

export async function listClients(db: Db): Promise<Omit<ClientRow, 'secretHash'>[]> {
  return db<Omit<ClientRow, 'secretHash'>[]>`
    /* listClients */
    select client_id as "clientId", workspace_id as "workspaceId", name from api_clients order by created`;
}

export async function countClients(db: Db): Promise<number> {
  const [{ count }] = await db<{ count: string }[]>`/* countClients */ select count(*) from api_clients`;
  return Number(count);
}

/** The token signing key: created by the first process to ask, then shared by all. */
export async function tokenSigningKey(db: Db): Promise<Buffer> {
  await db`
    /* ensureTokenSigningKey */
    insert into server_secrets (name, value) values ('token_signing_key', ${randomBytes(32)})
    on conflict (name) do nothing`;
  const [row] = await db<{ value: Buffer }[]>`
    /* tokenSigningKey */
    select value from server_secrets where name = 'token_signing_key'`;
  return row.value;
}
