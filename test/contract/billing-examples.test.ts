import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingOperationIds } from '../../src/billing/api.js';
import { handlers } from '../../src/billing/handlers.js';
import { OpenAPI31Backend } from '../../src/http/openapi31Backend.js';
import { issueToken } from '../../src/core/tokens.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { normalize } from '../support/normalize.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { loadExampleCases, loadSpec, type ExampleCase } from './billingExamples.js';
import { buildSampleWorld, substitute } from './sampleWorld.js';
import { loadLedgerExamples } from './ledgerExamples.js';

// Replays every named example of spec/billing.openapi.yaml against the running server, in a fresh
// workspace holding the spec's sample world: status, body valid against the response schema, and
// body equal to the example (ids, timestamps, tokens and error texts normalised). Billing routes
// and the token and health routes are replayed under /billing (current form) and unprefixed (earlier form).

const spec = loadSpec();
const cases = loadExampleCases(spec);
const served = new Set(Object.keys(handlers));
const ROOT_OPERATIONS = new Set(cases.filter((c) => !c.billing).map((c) => c.operationId));
const replayable = cases.filter((c) => !c.billing || served.has(c.operationId));

let server: TestServer;
let validator: OpenAPI31Backend;
beforeAll(async () => {
  server = await startTestServer();
  validator = new OpenAPI31Backend({ definition: structuredClone(spec) as never, validate: true });
  await validator.init();
});
afterAll(() => server?.close());

async function replay(example: ExampleCase, prefix: string) {
  const workspace = await server.workspace('Tally Examples');
  const servedForWorld = new Set([...served, ...ROOT_OPERATIONS]);
  const { substitutions } = await buildSampleWorld(
    spec['x-tally-sample-world'],
    server.baseUrl,
    workspace,
    servedForWorld,
  );
  const input = substitute({ path: example.pathParams, query: example.query, body: example.body }, substitutions);

  const route = example.path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(input.path[name]));
  const query = new URLSearchParams(input.query).toString();
  const headers: Record<string, string> = {};
  if (example.security === 'bearer') headers.authorization = `Bearer ${workspace.token}`;
  if (example.security === 'expired') {
    const claims = {
      workspaceId: workspace.workspaceId,
      clientId: workspace.clientId,
      expiresAt: Math.floor(Date.now() / 1000) - 60,
    };
    headers.authorization = `Bearer ${issueToken(claims, await tokenSigningKey(server.db.sql))}`;
  }
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
  const response = await fetch(`${server.baseUrl}${prefix}${route}${query ? `?${query}` : ''}`, {
    method: example.method,
    headers,
    body,
  });
  return { status: response.status, body: await response.json() };
}

describe('spec/billing.openapi.yaml examples', () => {
  // Every route, token and health included, answers under both base URLs.
  describe.each(
    replayable.flatMap(
      (example) =>
        [
          ['/billing', example],
          ['', example],
        ] as const,
    ),
  )('%s', (prefix, example) => {
    it(`${example.id} → ${example.status}`, async () => {
      const actual = await replay(example, prefix);
      expect(actual.status).toBe(example.status);
      const validation = validator.validateResponse(actual.body, example.operationId, actual.status);
      expect(validation.errors ?? []).toEqual([]);
      expect(normalize(actual.body)).toEqual(normalize(example.response));
    });
  });
});

describe('served operations', () => {
  it('the handler table serves every operation of the contract, and nothing else', () => {
    expect(Object.keys(handlers).sort()).toEqual(billingOperationIds().sort());
  });
});

describe('example ids', () => {
  it('match test/contract/example-ids.json, so a removed or renamed example shows up in review', () => {
    const snapshotPath = path.join(import.meta.dirname, 'example-ids.json');
    const current = {
      billing: cases.map((c) => c.id).sort(),
      ledger: loadLedgerExamples()
        .map((e) => e.id)
        .sort(),
    };
    if (process.env.UPDATE_EXAMPLE_IDS) fs.writeFileSync(snapshotPath, `${JSON.stringify(current, null, 2)}\n`);
    expect(current).toEqual(JSON.parse(fs.readFileSync(snapshotPath, 'utf8')));
  });
});
