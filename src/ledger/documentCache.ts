import { parse, validate, type DocumentNode, type GraphQLError } from 'graphql';

// Parsing and validating a document costs ~100x executing a small one, and clients send the same
// few documents over and over: cache both, by query text and by parsed document.

const MAX_DOCUMENTS = 1000;

export type DocumentCache = {
  parse: typeof parse;
  validate: typeof validate;
};

export function createDocumentCache(maxDocuments = MAX_DOCUMENTS): DocumentCache {
  const parsed = new Map<string, DocumentNode>();
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  const cachedParse = ((source: string) => {
    const hit = parsed.get(source);
    if (hit) {
      parsed.delete(source); // re-insert: Map order doubles as least-recently-used order
      parsed.set(source, hit);
      return hit;
    }
    const document = parse(source);
    parsed.set(source, document);
    if (parsed.size > maxDocuments) parsed.delete(parsed.keys().next().value!);
    return document;
  }) as typeof parse;

  // The schema and rules are fixed for the life of the process, so the document alone is the key.
  const cachedValidate = ((schema, document, rules) => {
    const hit = validated.get(document);
    if (hit) return hit;
    const errors = validate(schema, document, rules);
    validated.set(document, errors);
    return errors;
  }) as typeof validate;

  return { parse: cachedParse, validate: cachedValidate };
}
