import { buildSchema, specifiedRules } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createDocumentCache } from '../../src/ledger/documentCache.js';

const schema = buildSchema('type Query { hello: String }');

describe('GraphQL document cache', () => {
  it('parses a query text once and validates a document once', () => {
    const cache = createDocumentCache(10);
    const first = cache.parse('{ hello }');
    expect(cache.parse('{ hello }')).toBe(first);
    const errors = cache.validate(schema, first, specifiedRules);
    expect(errors).toEqual([]);
    expect(cache.validate(schema, first, specifiedRules)).toBe(errors);
  });

  it('keeps validation errors with the document', () => {
    const cache = createDocumentCache(10);
    const document = cache.parse('{ nope }');
    expect(cache.validate(schema, document, specifiedRules)).toHaveLength(1);
  });

  it('forgets the least recently used text beyond its size', () => {
    const cache = createDocumentCache(2);
    const a = cache.parse('{ a: hello }');
    cache.parse('{ b: hello }');
    cache.parse('{ a: hello }'); // touch a: b is now the oldest
    cache.parse('{ c: hello }');
    expect(cache.parse('{ a: hello }')).toBe(a);
    const b = cache.parse('{ b: hello }');
    expect(cache.parse('{ b: hello }')).toBe(b);
  });
});
