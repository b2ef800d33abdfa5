import { buildSchema, specifiedRules } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createDocumentCache } from '../../src/ledger/graphql/documentCache.js';

const schema = buildSchema('type Query { hello: String }');

describe('GraphQL document cache', () => {
  it('parses a query text once and validates a document once', () => {
    const cache = createDocumentCache({ maxDocuments: 10 });
    const first = cache.parse('{ hello }');
    expect(cache.parse('{ hello }')).toBe(first);
    const errors = cache.validate(schema, first, specifiedRules);
    expect(errors).toEqual([]);
    expect(cache.validate(schema, first, specifiedRules)).toBe(errors);
  });

  it('forgets a document that does not validate, so invalid ones cannot fill the cache', () => {
    const cache = createDocumentCache({ maxDocuments: 10 });
    const document = cache.parse('{ nope }');
    expect(cache.validate(schema, document, specifiedRules)).toHaveLength(1);
    expect(cache.parse('{ nope }')).not.toBe(document);
  });

  it('forgets the least recently used text beyond its size', () => {
    const cache = createDocumentCache({ maxDocuments: 2 });
    const a = cache.parse('{ a: hello }');
    cache.parse('{ b: hello }');
    cache.parse('{ a: hello }'); // touch a: b is now the oldest
    cache.parse('{ c: hello }');
    expect(cache.parse('{ a: hello }')).toBe(a);
    const b = cache.parse('{ b: hello }');
    expect(cache.parse('{ b: hello }')).toBe(b);
  });

  it('forgets the oldest texts beyond its size in characters, so long documents cannot pile up', () => {
    const long = (name: string) => `{ hello } # ${name} ${'x'.repeat(40)}`; // 54 characters
    const cache = createDocumentCache({ maxDocuments: 1000, maxSourceCharacters: 120 });
    const a = cache.parse(long('a'));
    const b = cache.parse(long('b'));
    expect(cache.parse(long('a'))).toBe(a); // touch a: b is now the oldest
    cache.parse(long('c')); // 162 characters would pass 120: b goes
    expect(cache.parse(long('a'))).toBe(a);
    expect(cache.parse(long('b'))).not.toBe(b);
  });

  it('refuses a document past the token limit without parsing it all', () => {
    const cache = createDocumentCache({ maxDocuments: 10 });
    expect(() => cache.parse(`{ ${'hello '.repeat(10_000)} }`)).toThrow(/limit tokens/);
  });

  it('runs the document limits before the schema rules, and only them when one fails', () => {
    const cache = createDocumentCache({ maxDocuments: 10 });
    const tooDeep = cache.parse(`{ ${'a { '.repeat(30)}b${' }'.repeat(30)} }`);
    const errors = cache.validate(schema, tooDeep, specifiedRules);
    expect(errors.length).toBeGreaterThan(0);
    // No "Cannot query field a" from the schema rules: they did not run.
    expect(new Set(errors.map((error) => error.extensions.code))).toEqual(new Set(['query_too_complex']));
  });
});
