import { graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildLedgerSchema } from '../../src/ledger/graphql/executableSchema.js';

// Client generators read a scalar's wire form from @specifiedBy in introspection; the served
// schema must keep the SDL's URLs although Tally's scalar implementations replace the SDL types.
describe('@specifiedBy in the served schema', () => {
  it('answers the SDL URL for every scalar that has one, and none for the others', async () => {
    const result = await graphql({
      schema: buildLedgerSchema(),
      source: '{ __schema { types { name kind specifiedByURL } } }',
    });
    const urls = Object.fromEntries(
      (result.data!.__schema as { types: { name: string; kind: string; specifiedByURL: string | null }[] }).types
        .filter((type) => type.kind === 'SCALAR')
        .map((type) => [type.name, type.specifiedByURL]),
    );
    expect(urls).toMatchObject({
      DateTime: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
      Date: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
      UTCOffset: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
      JSON: 'https://ecma-international.org/publications-and-standards/standards/ecma-404/',
      JSONObject: 'https://ecma-international.org/publications-and-standards/standards/ecma-404/',
      Int96: null,
      Period: null,
    });
  });
});
