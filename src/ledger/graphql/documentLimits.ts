import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import { DomainError } from '../../core/errors.js';

// What one GraphQL request may ask for. Cost and list items are the guards that bound the work;
// the others bound the document itself. Each default sits well above what the official SDK's
// documents and a dashboard reading 50 accounts x 4 balance fields need (measured by
// test/unit/graphql-limits.test.ts) and far below what it takes to keep a server busy.
// The defaults are stated in the description of `schema` in spec/ledger.graphql and in the README.
export type DocumentLimits = {
  /** Lexical tokens in the document, enforced by graphql's parser as it reads. */
  tokens: number;
  /** Nesting of selections, fragments expanded. */
  depth: number;
  /** Aliased fields, fragments expanded. */
  aliases: number;
  /** Directives, fragments expanded. */
  directives: number;
  /** Weighted fields, multiplied by the page size (`first`/`last`) of the lists they sit in. */
  cost: number;
  /**
   * Page sizes a request may ask for in all, counted as its list fields resolve. The cost rule cannot
   * see a page size passed in a variable (or the default of 20); this bound holds whatever was sent.
   */
  listItems: number;
};

export type DocumentLimit = keyof DocumentLimits;

export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = {
  tokens: 10_000,
  depth: 20,
  aliases: 500,
  directives: 20,
  cost: 50_000,
  listItems: 10_000,
};

/** The environment variable that sets each limit (read by config.ts). */
export const DOCUMENT_LIMIT_VARIABLES: Readonly<Record<DocumentLimit, string>> = {
  tokens: 'GRAPHQL_MAX_TOKENS',
  depth: 'GRAPHQL_MAX_DEPTH',
  aliases: 'GRAPHQL_MAX_ALIASES',
  directives: 'GRAPHQL_MAX_DIRECTIVES',
  cost: 'GRAPHQL_MAX_COST',
  listItems: 'GRAPHQL_MAX_LIST_ITEMS',
};

export function limitExceeded(limit: DocumentLimit, max: number, message: string): GraphQLError {
  return new GraphQLError(`${message} (limit ${limit}: at most ${max}).`, {
    extensions: { code: 'query_too_complex', limit, max },
  });
}

/** Counts the page sizes one request asks for; throws the typed error past `max`. */
export function listItemBudget(max: number): (pageSize: number) => void {
  let asked = 0;
  return (pageSize) => {
    asked += pageSize;
    if (asked > max) {
      throw new DomainError(
        'query_too_complex',
        `The lists of this request ask for more than ${max} items in all (limit listItems); ask for fewer or smaller pages.`,
        { limit: 'listItems', max },
      );
    }
  };
}

/** Reports a refusal of one of the armor rules as our typed error instead of letting it throw. */
function reportAs(limit: DocumentLimit, max: number) {
  return {
    propagateOnRejection: false,
    exposeLimits: true,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        context?.reportError(
          limitExceeded(limit, max, error.message.replace(/^Syntax Error: /, '').replace(/\.$/, '')),
        );
      },
    ],
  };
}

/** Rules that run before graphql's own (and instead of them when one fails): all linear in the document. */
export function documentLimitRules(limits: DocumentLimits): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.depth, ignoreIntrospection: false, ...reportAs('depth', limits.depth) }),
    maxAliasesRule({ n: limits.aliases, ...reportAs('aliases', limits.aliases) }),
    maxDirectivesRule({ n: limits.directives, ...reportAs('directives', limits.directives) }),
    costLimitRule({ maxCost: limits.cost, ignoreIntrospection: false, ...reportAs('cost', limits.cost) }),
  ];
}
