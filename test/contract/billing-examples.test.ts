import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingOperationIds } from '../../src/billing/api.js';
import { handlers } from '../../src/billing/handlers.js';
import { OpenAPI31Backend } from '../../src/http/openapi31Backend.js';
import { issueToken } from '../../src/core/tokens.js';
import { tokenSigningKey } from '../../src/db/workspaces.js';
import { normalize } from '../../src/conformance/normalize.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { loadExampleCases, loadSpec, type ExampleCase } from '../../src/conformance/billingExamples.js';
import { replayBillingExample } from '../../src/conformance/replay.js';
import { loadLedgerExamples } from '../../src/conformance/ledgerExamples.js';

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
  let expiredToken: string | undefined;
  if (example.security === 'expired') {
    const claims = {
      workspaceId: workspace.workspaceId,
      clientId: workspace.clientId,
      expiresAt: Math.floor(Date.now() / 1000) - 60,
    };
    expiredToken = issueToken(claims, await tokenSigningKey(server.db.sql));
  }
  return replayBillingExample(server.baseUrl, spec, example, workspace, {
    prefix,
    served: new Set([...served, ...ROOT_OPERATIONS]),
    expiredToken,
  });
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
