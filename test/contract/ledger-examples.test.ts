import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { buildLedgerSchema } from '../../src/ledger/graphql/executableSchema.js';
import { responseShapeProblems } from '../support/graphqlShape.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idsIn, normalizeGraphqlResponse } from '../../src/conformance/normalize.js';
import { loadLedgerExamples } from '../../src/conformance/ledgerExamples.js';
import { postLedgerExample, requiredSteps } from '../../src/conformance/replay.js';
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
    for (const step of requiredSteps(example, byId)) {
      const answer = await postLedgerExample(server.baseUrl, token, step, answers);
      expect({ step: step.id, response: normalizeGraphqlResponse(answer) }).toEqual({
        step: step.id,
        response: normalizeGraphqlResponse(step.response as never),
      });
      answers.set(step.id, answer);
    }
    const answer = await postLedgerExample(server.baseUrl, token, example, answers);
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
