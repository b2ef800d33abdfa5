import fs from 'node:fs';
import type { Document } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { OpenAPI31Backend } from '../http/openapi31Backend.js';
import { loadExampleCases, SPEC_PATH, type ExampleCase } from './billingExamples.js';
import { loadLedgerExamples, type LedgerExample } from './ledgerExamples.js';
import { idsIn, normalize, normalizeGraphqlResponse } from './normalize.js';
import { buildBillingWorld, postLedgerExample, replayBillingExample, requiredSteps } from './replay.js';
import type { ExampleWorkspace } from './sampleWorld.js';

// The conformance suite: every example of both contracts, sent to any server that claims the API
// (Tally or another implementation), each judged pass, fail (with the first difference) or skipped
// (with the reason). Examples that write need a fresh workspace each: with the admin token of a
// Tally sandbox every example gets one; with only a client's credentials, the examples that
// write are skipped and the others run in that client's workspace, once the sample world is in it.

export type Outcome = 'pass' | 'fail' | 'skip';
export type CaseResult = {
  contract: 'billing' | 'ledger';
  id: string;
  operation: string;
  outcome: Outcome;
  /** The first difference (fail) or the reason (skip). */
  detail?: string;
  ms: number;
};

export type ConformanceOptions = {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A Tally sandbox's admin token: a fresh workspace for every example. */
  adminToken?: string;
  /** Only the examples whose id contains this text. */
  filter?: string;
  onResult?: (result: CaseResult) => void;
};

type Json = Record<string, any>;

export async function runConformance(options: ConformanceOptions): Promise<CaseResult[]> {
  const spec = parseYaml(fs.readFileSync(SPEC_PATH, 'utf8')) as Json;
  const validator = new OpenAPI31Backend({ definition: structuredClone(spec) as Document, validate: true });
  await validator.init();
  const workspaces = await workspaceSource(options);
  const billing = loadExampleCases(spec).filter((c) => !options.filter || c.id.includes(options.filter));
  const ledgerExamples = loadLedgerExamples();
  const byId = new Map(ledgerExamples.map((example) => [example.id, example]));
  const ledger = ledgerExamples.filter((e) => !options.filter || e.id.includes(options.filter));
  const served = new Set(billing.map((c) => c.operationId));

  const results: CaseResult[] = [];
  const record = (result: CaseResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  for (const example of billing) {
    record(await timed('billing', example.id, example.operationId, () => billingCase(example)));
  }
  for (const example of ledger) {
    record(await timed('ledger', example.id, rootField(example), () => ledgerCase(example)));
  }
  await workspaces.done();
  return results;

  async function billingCase(example: ExampleCase): Promise<Omit<CaseResult, 'contract' | 'id' | 'operation' | 'ms'>> {
    if (example.security === 'expired')
      return { outcome: 'skip', detail: 'needs a token the server signed and let expire' };
    if (!workspaces.fresh && writes(example))
      return { outcome: 'skip', detail: 'writes: needs a fresh workspace (pass the admin token of a Tally sandbox)' };
    const { workspace, world } = await workspaces.forBilling(spec, served);
    const answer = await replayBillingExample(options.baseUrl, spec, example, workspace, {
      prefix: '/billing',
      served,
      world,
    });
    if (answer.status !== example.status)
      return { outcome: 'fail', detail: `status ${answer.status}, the example says ${example.status}` };
    const validation = validator.validateResponse(answer.body, example.operationId, answer.status);
    if (validation.errors?.length)
      return {
        outcome: 'fail',
        detail: `the answer breaks the response schema: ${JSON.stringify(validation.errors[0])}`,
      };
    const difference = firstDifference(normalize(example.response), normalize(answer.body));
    return difference ? { outcome: 'fail', detail: difference } : { outcome: 'pass' };
  }

  async function ledgerCase(example: LedgerExample): Promise<Omit<CaseResult, 'contract' | 'id' | 'operation' | 'ms'>> {
    if (!workspaces.fresh)
      return { outcome: 'skip', detail: 'writes: needs a fresh workspace (pass the admin token of a Tally sandbox)' };
    const workspace = await workspaces.fresh();
    const answers = new Map<string, unknown>();
    for (const step of requiredSteps(example, byId)) {
      const answer = await postLedgerExample(options.baseUrl, workspace.token, step, answers);
      const difference = firstDifference(normalizeGraphqlResponse(step.response), normalizeGraphqlResponse(answer));
      if (difference) return { outcome: 'fail', detail: `required step ${step.id}: ${difference}` };
      answers.set(step.id, answer);
    }
    const answer = await postLedgerExample(options.baseUrl, workspace.token, example, answers);
    const difference = firstDifference(normalizeGraphqlResponse(example.response), normalizeGraphqlResponse(answer));
    if (difference) return { outcome: 'fail', detail: difference };
    if (example.sameIdsAs) {
      const ids = firstDifference(idsIn(answers.get(example.sameIdsAs)), idsIn(answer));
      if (ids) return { outcome: 'fail', detail: `ids differ from ${example.sameIdsAs}: ${ids}` };
    }
    return { outcome: 'pass' };
  }
}

/** A success that changes state: replaying it in a shared workspace would change what the next example sees. */
function writes(example: ExampleCase): boolean {
  return example.method !== 'GET' && !/^search|^createAccessToken$/.test(example.operationId) && example.status < 400;
}

const rootField = (example: LedgerExample) => /\{\s*(\w+)/.exec(example.query.replace(/^[^{]*/, ''))?.[1] ?? example.id;

async function timed(
  contract: CaseResult['contract'],
  id: string,
  operation: string,
  run: () => Promise<Omit<CaseResult, 'contract' | 'id' | 'operation' | 'ms'>>,
): Promise<CaseResult> {
  const started = performance.now();
  try {
    return { contract, id, operation, ...(await run()), ms: Math.round(performance.now() - started) };
  } catch (error) {
    const detail = `could not run: ${error instanceof Error ? error.message : String(error)}`;
    return { contract, id, operation, outcome: 'fail', detail, ms: Math.round(performance.now() - started) };
  }
}

type WorkspaceSource = {
  /** A fresh workspace per call, when the server can make them (a Tally sandbox); absent otherwise. */
  fresh?: () => Promise<ExampleWorkspace>;
  /** The workspace a billing example runs in: a fresh one, or the shared one with the sample world built once. */
  forBilling: (
    spec: Json,
    served: Set<string>,
  ) => Promise<{ workspace: ExampleWorkspace; world?: Map<string, string> }>;
  done: () => Promise<void>;
};

async function workspaceSource(options: ConformanceOptions): Promise<WorkspaceSource> {
  const token = (clientId: string, clientSecret: string) => fetchToken(options.baseUrl, clientId, clientSecret);
  if (!options.adminToken) {
    const shared: ExampleWorkspace = {
      workspaceId: '',
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      token: await token(options.clientId, options.clientSecret),
    };
    let world: Promise<Map<string, string>> | undefined;
    return {
      forBilling: async (spec, served) => ({
        workspace: shared,
        world: await (world ??= buildBillingWorld(options.baseUrl, spec, shared, served)),
      }),
      done: async () => {},
    };
  }
  const admin = (method: string, route: string, body?: unknown) =>
    fetch(`${options.baseUrl}/sandbox${route}`, {
      method,
      headers: { authorization: `Bearer ${options.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const made: string[] = [];
  const fresh = async (): Promise<ExampleWorkspace> => {
    const response = await admin('POST', '/workspaces', { name: 'Tally Examples' });
    if (response.status !== 201) throw new Error(`the sandbox did not make a workspace (${response.status})`);
    const { workspace, client } = ((await response.json()) as Json).data;
    made.push(workspace.id);
    return {
      workspaceId: workspace.id,
      clientId: client.client_id,
      clientSecret: client.client_secret,
      token: await token(client.client_id, client.client_secret),
    };
  };
  return {
    fresh,
    forBilling: async () => ({ workspace: await fresh() }),
    done: async () => {
      for (const id of made) await admin('DELETE', `/workspaces/${id}`);
    },
  };
}

async function fetchToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`no token for client ${clientId} (${response.status})`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Where two JSON values first differ, as a JSON pointer and both values; undefined when equal. */
export function firstDifference(expected: unknown, actual: unknown, at = ''): string | undefined {
  if (Object.is(expected, actual)) return undefined;
  const bothObjects = expected && actual && typeof expected === 'object' && typeof actual === 'object';
  if (!bothObjects || Array.isArray(expected) !== Array.isArray(actual)) {
    return `at ${at || '/'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  for (const key of keys) {
    const difference = firstDifference((expected as Json)[key], (actual as Json)[key], `${at}/${key}`);
    if (difference) return difference;
  }
  return undefined;
}
