import { GraphQLError, parse, validate, type DocumentNode, type ValidationRule } from 'graphql';
import { DEFAULT_DOCUMENT_LIMITS, documentLimitRules, limitExceeded, type DocumentLimits } from './documentLimits.js';
import { withMutationTypenames } from './mutationTypenames.js';
import { unstorableTextRule } from './unstorableTextRule.js';

// Parsing and validating a document costs ~100x executing a small one, and clients send the same
// few documents over and over: cache valid documents, by query text. The cache is bounded by
// count and by total text size (a document may be mostly a long comment), and the limits of
// documentLimits.ts are checked once per document, before graphql's own rules.

const MAX_DOCUMENTS = 1000;
const MAX_SOURCE_CHARACTERS = 4 * 1024 * 1024;

export type DocumentCache = {
  parse: typeof parse;
  validate: typeof validate;
};

export type DocumentCacheOptions = {
  maxDocuments?: number;
  maxSourceCharacters?: number;
  limits?: DocumentLimits;
};

export function createDocumentCache(options: DocumentCacheOptions = {}): DocumentCache {
  const {
    maxDocuments = MAX_DOCUMENTS,
    maxSourceCharacters = MAX_SOURCE_CHARACTERS,
    limits = DEFAULT_DOCUMENT_LIMITS,
  } = options;
  const limitRules = documentLimitRules(limits);
  const parsed = new Map<string, DocumentNode>();
  let cachedCharacters = 0;
  const validated = new WeakMap<DocumentNode, readonly GraphQLError[]>();

  const remember = (source: string, document: DocumentNode) => {
    parsed.set(source, document);
    cachedCharacters += source.length;
    // Map order doubles as least-recently-used order.
    while (parsed.size > maxDocuments || cachedCharacters > maxSourceCharacters) {
      const oldest = parsed.keys().next().value!;
      parsed.delete(oldest);
      cachedCharacters -= oldest.length;
    }
  };

  const forget = (source: string | undefined) => {
    if (source !== undefined && parsed.delete(source)) cachedCharacters -= source.length;
  };

  const cachedParse = ((source: string) => {
    const hit = parsed.get(source);
    if (hit) {
      parsed.delete(source);
      parsed.set(source, hit);
      return hit;
    }
    const document = withMutationTypenames(parseWithinLimits(source, limits.tokens));
    remember(source, document);
    return document;
  }) as typeof parse;

  // The schema and rules are fixed for the life of the process, so the document alone is the key.
  const cachedValidate = ((schema, document, rules: readonly ValidationRule[] = []) => {
    const hit = validated.get(document);
    if (hit) return hit;
    // Limits first and alone: graphql's own rules (overlapping fields, above all) are superlinear
    // on the documents the limits refuse.
    const refused = validate(schema, document, [...limitRules, unstorableTextRule]);
    const errors = refused.length > 0 ? refused : validate(schema, document, rules);
    // Only documents that validate stay cached: those are what clients send again and again,
    // while invalid ones (typos, attacks) would fill the cache with their ASTs and errors.
    if (errors.length > 0) forget(document.loc?.source.body);
    else validated.set(document, errors);
    return errors;
  }) as typeof validate;

  return { parse: cachedParse, validate: cachedValidate };
}

function parseWithinLimits(source: string, maxTokens: number): DocumentNode {
  try {
    return parse(source, { maxTokens });
  } catch (error) {
    if (error instanceof GraphQLError && error.message.includes('tokens. Parsing aborted')) {
      throw limitExceeded('tokens', maxTokens, `The document has more than ${maxTokens} tokens`);
    }
    throw error;
  }
}
