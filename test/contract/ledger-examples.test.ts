import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { buildLedgerSchema } from '../../src/ledger/graphql/executableSchema.js';
import { responseShapeProblems } from '../support/graphqlShape.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idsIn, normalizeGraphqlResponse } from '../support/normalize.js';
import { loadLedgerExamples, type LedgerExample as Example } from './ledgerExamples.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Replays every example in spec/examples/ledger/ against the running server: each runs in a fresh
// workspace named "Tally Examples", after the examples it `requires`, and its response must equal
// the example's (ids, timestamps and error texts normalised).

const SDL = fs.readFileSync(path.resolve(import.meta.dirname, '../../spec/ledger.graphql'), 'utf8');

const examples = loadLedgerExamples();
// The served schema, with Tally's scalar implementations: scalar values are checked by their own parsers.
const servedSchema = buildLedgerSchema();
const byId = new Map(examples.map((example) => [example.id, example]));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

// A variable written "{{step.data.path.to.value}}" takes that value from a required step's answer
// (ids are generated, so an example that reverses an entry names it this way).
function resolveReferences(value: unknown, answers: Map<string, unknown>): unknown {
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

async function post(token: string, example: Example, answers = new Map<string, unknown>()) {
  const response = await fetch(`${server.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: example.query, variables: resolveReferences(example.variables, answers) }),
  });
  return (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: unknown } }[] };
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
    const answers = new Map<string, unknown>();
    // Each required step must answer as its own example says, or what follows proves nothing.
    const runRequirements = async (ids: string[]) => {
      for (const id of ids) {
        if (answers.has(id)) continue;
        const required = byId.get(id);
        if (!required) throw new Error(`${example.id} requires unknown example ${id}`);
        await runRequirements(required.requires);
        const answer = await post(token, required, answers);
        expect({ step: id, response: normalizeGraphqlResponse(answer) }).toEqual({
          step: id,
          response: normalizeGraphqlResponse(required.response as never),
        });
        answers.set(id, answer);
      }
    };
    await runRequirements(example.requires);
    const answer = await post(token, example, answers);
    // Both the example and the server's answer must be shapes the SDL allows for this document.
    const document = parse(example.query);
    expect(responseShapeProblems(servedSchema, document, (example.response as { data?: unknown }).data)).toEqual([]);
    expect(responseShapeProblems(servedSchema, document, answer.data)).toEqual([]);
    expect(normalizeGraphqlResponse(answer)).toEqual(normalizeGraphqlResponse(example.response as never));
    if (example.sameIdsAs) {
      if (!answers.has(example.sameIdsAs))
        throw new Error(`${example.id}: sameIdsAs names ${example.sameIdsAs}, which it does not require`);
      expect(idsIn(answer)).toEqual(idsIn(answers.get(example.sameIdsAs)));
    }
  });
});
