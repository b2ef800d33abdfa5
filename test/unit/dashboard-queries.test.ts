import fs from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import * as queries from '../../src/dashboard/client/queries.js';

// The dashboard's documents are plain strings in the browser bundle; this keeps them valid against
// the contract, so a renamed field fails here rather than as an error page.

const schema = buildSchema(fs.readFileSync(new URL('../../spec/ledger.graphql', import.meta.url), 'utf8'));

describe('the dashboard’s GraphQL documents', () => {
  it.each(Object.entries(queries))('%s is valid against spec/ledger.graphql', (_name, document) => {
    expect(validate(schema, parse(document)).map((error) => error.message)).toEqual([]);
  });
});
