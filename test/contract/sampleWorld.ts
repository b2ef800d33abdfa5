import type { TestWorkspace } from '../support/server.js';

// Builds the spec's `x-tally-sample-world` in a fresh workspace through the public API, and maps
// the sample ids the examples use to the ids this server generated. Sections whose operations
// the server does not serve yet are left out (their examples are pending too).

type World = {
  client: { client_id: string; client_secret: string; workspace: string };
  products?: Record<string, unknown>[];
  ids: Record<string, string>;
};

export type BuiltWorld = {
  /** Sample value (id, client id, secret) → the real one in this workspace. */
  substitutions: Map<string, string>;
};

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

export async function buildSampleWorld(
  world: World, baseUrl: string, workspace: TestWorkspace, served: Set<string>,
): Promise<BuiltWorld> {
  const api: Api = async (method, path, body) => {
    const response = await fetch(`${baseUrl}/billing${path}`, {
      method,
      headers: { authorization: `Bearer ${workspace.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`sample world: ${method} ${path} answered ${response.status} ${JSON.stringify(json)}`);
    return json;
  };

  if (served.has('createProduct')) {
    for (const product of world.products ?? []) await api('POST', '/products', product);
  }

  const substitutions = new Map<string, string>([
    [world.client.client_id, workspace.clientId],
    [world.client.client_secret, workspace.clientSecret],
  ]);
  const resolvers = await idResolvers(api, served, workspace);
  for (const [sampleId, description] of Object.entries(world.ids)) {
    const real = resolvers(description);
    if (real) substitutions.set(sampleId, real);
  }
  return { substitutions };
}

/** Finds the real id that a sample-world `ids` description names, for the resources served. */
async function idResolvers(api: Api, served: Set<string>, workspace: TestWorkspace) {
  const products: { id: string; code: string; paid_by_roles: Role[]; paid_to_roles: Role[] }[] =
    served.has('listProducts') ? (await api('GET', '/products')).data : [];
  const roles = new Map(products.flatMap((p) => [...p.paid_by_roles, ...p.paid_to_roles]).map((r) => [r.name, r.id]));
  return (description: string): string | undefined => {
    if (description.startsWith('workspace of ')) return workspace.workspaceId;
    const [kind, name] = [description.split(' ')[0], description.split(' ').slice(1).join(' ')];
    if (kind === 'role') return roles.get(name);
    if (kind === 'product') return products.find((p) => p.code === name)?.id;
    return undefined;
  };
}

type Role = { id: string; name: string };

/** Replaces every string that is a sample value with its real counterpart, deeply. */
export function substitute<T>(value: T, substitutions: Map<string, string>): T {
  if (typeof value === 'string') return (substitutions.get(value) ?? value) as T;
  if (Array.isArray(value)) return value.map((item) => substitute(item, substitutions)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, substitutions)])) as T;
  }
  return value;
}
