import { hashGeneratedSecret, hashSecret, newClientId, newClientSecret, verifySecret } from '../core/credentials.js';
import { newId } from '../core/ids.js';
import type { Db, Sql } from './sql.js';
import { countClients, findClient, insertClient, insertWorkspace, updateClientSecret } from './workspaces.js';

export type Credential = { workspaceId: string; clientId: string; clientSecret: string };

export async function createWorkspace(db: Db, name: string): Promise<string> {
  const workspace = await insertWorkspace(db, newId('ws'), name);
  return workspace.id;
}

export async function createClient(
  db: Db,
  workspaceId: string,
  options: { name?: string; clientId?: string; clientSecret?: string } = {},
): Promise<Credential> {
  const clientId = options.clientId ?? newClientId();
  const clientSecret = options.clientSecret ?? newClientSecret();
  await insertClient(db, {
    clientId,
    workspaceId,
    secretHash: options.clientSecret === undefined ? hashGeneratedSecret(clientSecret) : hashSecret(clientSecret),
    name: options.name ?? clientId,
  });
  return { workspaceId, clientId, clientSecret };
}

/**
 * Makes the configured bootstrap client exist with the configured secret (the environment is the
 * source of truth), creating its workspace on first use. Safe to run at every start.
 */
export async function ensureBootstrapClient(
  sql: Sql,
  clientId: string,
  clientSecret: string,
  workspaceName: string,
): Promise<'created' | 'updated' | 'unchanged'> {
  return sql.begin(async (trx) => {
    await trx`select pg_advisory_xact_lock(hashtext(${`bootstrap:${clientId}`}))`;
    const existing = await findClient(trx, clientId);
    if (!existing) {
      await createClient(trx, await createWorkspace(trx, workspaceName), { clientId, clientSecret, name: 'bootstrap' });
      return 'created';
    }
    if (await verifySecret(clientSecret, existing.secretHash)) return 'unchanged';
    await updateClientSecret(trx, clientId, hashSecret(clientSecret));
    return 'updated';
  });
}

/** On a database with no clients at all, creates a development workspace and client. */
export async function ensureDevelopmentClient(sql: Sql): Promise<Credential | undefined> {
  return sql.begin(async (trx) => {
    await trx`select pg_advisory_xact_lock(hashtext('bootstrap:development'))`;
    if ((await countClients(trx)) > 0) return undefined;
    return createClient(trx, await createWorkspace(trx, 'Development'), { name: 'development' });
  });
}
