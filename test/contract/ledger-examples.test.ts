import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeGraphqlResponse } from '../support/normalize.js';
import { loadLedgerExamples, type LedgerExample as Example } from './ledgerExamples.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Replays every example in spec/examples/ledger/ against the running server: each runs in a fresh
// workspace named "Tally Examples", after the examples it `requires`, and its response must equal
// the example's (ids, timestamps and error texts normalised).

const SDL = fs.readFileSync(path.resolve(import.meta.dirname, '../../spec/ledger.graphql'), 'utf8');

const examples = loadLedgerExamples();
const byId = new Map(examples.map((example) => [example.id, example]));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function post(token: string, example: Example) {
  const response = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: example.query, variables: example.variables }),
  });
  return (await response.json()) as { data?: unknown; errors?: unknown[] };
}

describe('spec/examples/ledger', () => {
  it('every example document is valid against spec/ledger.graphql', () => {
    const schema = buildSchema(SDL);
    for (const example of examples) {
      const errors = validate(schema, parse(example.query)).map(String);
      expect({ id: example.id, errors }).toEqual({ id: example.id, errors: [] });
    }
  });

  it.each(examples.map((example) => [example.id, example] as const))('%s', async (_id, example) => {
    const { token } = await server.workspace('Tally Examples');
    const ran = new Set<string>();
    const runRequirements = async (ids: string[]) => {
      for (const id of ids) {
        if (ran.has(id)) continue;
        const required = byId.get(id);
        if (!required) throw new Error(`${example.id} requires unknown example ${id}`);
        await runRequirements(required.requires);
        await post(token, required);
        ran.add(id);
      }
    };
    await runRequirements(example.requires);
    const actual = normalizeGraphqlResponse(await post(token, example));
    expect(actual).toEqual(normalizeGraphqlResponse(example.response as never));
  });
});
