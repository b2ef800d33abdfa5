import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { sandboxOperationIds } from '../../src/sandbox/api.js';
import { OpenAPI31Backend } from '../../src/http/openapi31Backend.js';
import { normalize } from '../../src/conformance/normalize.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server.js';
import { loadExampleCases, type ExampleCase } from '../../src/conformance/billingExamples.js';

// Replays every named example of spec/sandbox.openapi.yaml against the running server, each in
// the world the contract describes (a fresh workspace `checkout tests` with a snapshot `empty`):
// status, body valid against the response schema, body equal to the example once ids,
// timestamps, secrets and error texts are normalised.

const SPEC_PATH = path.resolve(import.meta.dirname, '../../spec/sandbox.openapi.yaml');
const spec = parseYaml(fs.readFileSync(SPEC_PATH, 'utf8'));
const cases = loadExampleCases(spec);
const world: { workspace: string; snapshot: string; fault: string } = spec['x-tally-sample-world'];

let server: TestServer;
let validator: OpenAPI31Backend;
beforeAll(async () => {
  server = await startTestServer({ sandbox: { adminToken: ADMIN_TOKEN } });
  validator = new OpenAPI31Backend({ definition: structuredClone(spec) as never, validate: true });
  await validator.init();
});
afterAll(() => server?.close());

const admin = (method: string, route: string, body?: unknown) =>
  fetch(`${server.baseUrl}/sandbox${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function replay(example: ExampleCase) {
  const created = await (await admin('POST', '/workspaces', { name: 'checkout tests' })).json();
  const workspaceId: string = created.data.workspace.id;
  expect((await admin('POST', `/workspaces/${workspaceId}/snapshots`, { name: world.snapshot })).status).toBe(201);
  const params: Record<string, string> = {
    workspace_id: workspaceId,
    name: world.snapshot,
    fault_id: world.fault,
    ...definedOnly(example.pathParams),
  };
  const route = example.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
  const response = await admin(example.method, route, example.body);
  return { status: response.status, body: await response.json() };
}

const definedOnly = (values: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Record<string, string>;

describe('spec/sandbox.openapi.yaml examples', () => {
  it.each(cases.map((example) => [example.id, example] as const))('%s', async (_id, example) => {
    const actual = await replay(example);
    expect(actual.status).toBe(example.status);
    const validation = validator.validateResponse(actual.body, example.operationId, actual.status);
    expect(validation.errors ?? []).toEqual([]);
    expect(normalize(actual.body)).toEqual(normalize(example.response));
  });

  it('covers every operation of the contract with at least one example, and the server serves exactly those', () => {
    const operations = Object.values<Record<string, { operationId?: string }>>(spec.paths)
      .flatMap((item) => Object.values(item))
      .map((operation) => operation?.operationId)
      .filter(Boolean);
    expect([...new Set(cases.map((c) => c.operationId))].sort()).toEqual(
      operations.filter((id) => id !== 'listSandboxWorkspaces').sort(),
    );
    expect(sandboxOperationIds().sort()).toEqual([...operations].sort());
  });
});
