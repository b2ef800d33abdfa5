import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import { DomainError } from '../core/errors.js';

// What one GraphQL document may ask for. Each limit sits well above what the official SDK's and
// our examples' documents need (test/unit/graphql-limits.test.ts measures them) and far below what
// it takes to keep a server busy: a refusal costs microseconds, an accepted document is bounded.
// The same numbers are stated in the description of `schema` in spec/ledger.graphql.
export const DOCUMENT_LIMITS = {
  /** Lexical tokens in the document, enforced by graphql's parser as it reads. */
  tokens: 5000,
  /** Nesting of selections, fragments expanded. */
  depth: 20,
  /** Aliased fields, fragments expanded. */
  aliases: 30,
  /** Directives, fragments expanded. */
  directives: 20,
  /** Weighted fields, multiplied by the page size (`first`/`last`) of the lists they sit in. */
  cost: 50_000,
} as const;

export type DocumentLimit = keyof typeof DOCUMENT_LIMITS;

/**
 * Page sizes a request may ask for in all, counted as its list fields resolve. The cost rule cannot
 * see a page size passed in a variable (or the default of 20); this bound holds whatever was sent.
 */
export const LIST_ITEMS_PER_REQUEST = 10_000;

export function limitExceeded(limit: DocumentLimit, message: string): GraphQLError {
  return new GraphQLError(`${message} (limit ${limit}: at most ${DOCUMENT_LIMITS[limit]}).`, {
    extensions: { code: 'query_too_complex', limit, max: DOCUMENT_LIMITS[limit] },
  });
}

/** Counts the page sizes one request asks for; throws the typed error past LIST_ITEMS_PER_REQUEST. */
export function listItemBudget(): (pageSize: number) => void {
  let asked = 0;
  return (pageSize) => {
    asked += pageSize;
    if (asked > LIST_ITEMS_PER_REQUEST) {
      throw new DomainError('query_too_complex',
        `The lists of this request ask for more than ${LIST_ITEMS_PER_REQUEST} items in all (limit listItems); ask for fewer or smaller pages.`,
        { limit: 'listItems', max: LIST_ITEMS_PER_REQUEST });
    }
  };
}

/** Reports a refusal of one of the armor rules as our typed error instead of letting it throw. */
function reportAs(limit: DocumentLimit) {
  return {
    propagateOnRejection: false,
    exposeLimits: true,
    onReject: [(context: ValidationContext | null, error: GraphQLError) => {
      context?.reportError(limitExceeded(limit, error.message.replace(/^Syntax Error: /, '').replace(/\.$/, '')));
    }],
  };
}

/** Rules that run before graphql's own (and instead of them when one fails): all linear in the document. */
export const documentLimitRules: ValidationRule[] = [
  maxDepthRule({ n: DOCUMENT_LIMITS.depth, ignoreIntrospection: false, ...reportAs('depth') }) as ValidationRule,
  maxAliasesRule({ n: DOCUMENT_LIMITS.aliases, ...reportAs('aliases') }) as ValidationRule,
  maxDirectivesRule({ n: DOCUMENT_LIMITS.directives, ...reportAs('directives') }) as ValidationRule,
  costLimitRule({ maxCost: DOCUMENT_LIMITS.cost, ignoreIntrospection: false, ...reportAs('cost') }) as ValidationRule,
];
