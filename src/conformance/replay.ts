import type { ExampleCase } from './billingExamples.js';
import type { LedgerExample } from './ledgerExamples.js';
import { buildSampleWorld, substitute, type ExampleWorkspace } from './sampleWorld.js';

// Sending the contracts' examples to a server as a client would: a billing example after the
// sample world it assumes is built in its workspace, a ledger example after the examples it
// requires. Shared by the contract tests and the conformance suite.

export type Answer = { status: number; body: unknown };
type Json = Record<string, any>;

/** The billing example's request, sent under `prefix` (`/billing` or `''`) in a workspace holding the sample world. */
export async function replayBillingExample(
  baseUrl: string,
  spec: Json,
  example: ExampleCase,
  workspace: ExampleWorkspace,
  options: {
    prefix: string;
    served: Set<string>;
    expiredToken?: string;
    /** The sample world's ids in this workspace, when it holds the world already (built once, shared). */
    world?: Map<string, string>;
  },
): Promise<Answer> {
  const substitutions = options.world ?? (await buildBillingWorld(baseUrl, spec, workspace, options.served));
  const input = substitute({ path: example.pathParams, query: example.query, body: example.body }, substitutions);
  const route = example.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(input.path[name]));
  const query = new URLSearchParams(input.query).toString();
  const headers: Record<string, string> = {};
  if (example.security === 'bearer') headers.authorization = `Bearer ${workspace.token}`;
  if (example.security === 'expired') headers.authorization = `Bearer ${options.expiredToken}`;
  if (example.security === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${workspace.clientId}:${workspace.clientSecret}`).toString('base64')}`;
  }
  let body: string | undefined;
  if (input.body !== undefined) {
    headers['content-type'] = example.mediaType!;
    body =
      example.mediaType === 'application/x-www-form-urlencoded'
        ? new URLSearchParams(input.body as Record<string, string>).toString()
        : JSON.stringify(input.body);
  }
  const response = await fetch(`${baseUrl}${options.prefix}${route}${query ? `?${query}` : ''}`, {
    method: example.method,
    headers,
    body,
  });
  return { status: response.status, body: await response.json() };
}

/** Builds the billing sample world in the workspace; answers its sample ids mapped to the real ones. */
export async function buildBillingWorld(
  baseUrl: string,
  spec: Json,
  workspace: ExampleWorkspace,
  served: Set<string>,
): Promise<Map<string, string>> {
  return (await buildSampleWorld(spec['x-tally-sample-world'], baseUrl, workspace, served)).substitutions;
}

export type LedgerAnswer = { data?: unknown; errors?: { extensions?: { code?: unknown } }[] };

/** Posts one ledger example, its `{{step.path}}` variables taken from the answers of the steps before it. */
export async function postLedgerExample(
  baseUrl: string,
  token: string,
  example: LedgerExample,
  answers = new Map<string, unknown>(),
): Promise<LedgerAnswer> {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: example.query, variables: resolveReferences(example.variables, answers) }),
  });
  return (await response.json()) as LedgerAnswer;
}

/**
 * A variable written "{{step.data.path.to.value}}" takes that value from a required step's answer
 * (ids are generated, so an example that reverses an entry names it this way).
 */
export function resolveReferences(value: unknown, answers: Map<string, unknown>): unknown {
  if (typeof value === 'string') {
    const reference = /^\{\{([A-Za-z0-9]+)\.(.+)\}\}$/.exec(value);
    if (!reference) return value;
    const found = reference[2]
      .split('.')
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], answers.get(reference[1]));
    if (found === undefined) throw new Error(`Unresolved example reference ${value}`);
    return found;
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, answers));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, answers)]));
  return value;
}

/** The examples an example requires, transitively, in the order they must run (each once). */
export function requiredSteps(example: LedgerExample, byId: Map<string, LedgerExample>): LedgerExample[] {
  const ordered: LedgerExample[] = [];
  const visit = (ids: string[]) => {
    for (const id of ids) {
      if (ordered.some((step) => step.id === id)) continue;
      const required = byId.get(id);
      if (!required) throw new Error(`${example.id} requires unknown example ${id}`);
      visit(required.requires);
      ordered.push(required);
    }
  };
  visit(example.requires);
  return ordered;
}
