import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  Lexer,
  Source,
  TokenKind,
  buildSchema,
  parse,
  print,
  validate,
  type DocumentNode,
  type ValidationRule,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS, documentLimitRules } from '../../src/ledger/graphql/documentLimits.js';

const schema = buildSchema(readFileSync(new URL('../../spec/ledger.graphql', import.meta.url), 'utf8'));
const require = createRequire(import.meta.url);
const sdkGenerated = require(join(dirname(require.resolve('@fragment-dev/node-client')), '../generated/generated.js'));
const examplesDir = new URL('../../spec/examples/ledger/', import.meta.url);

type DocumentLimit = 'tokens' | 'depth' | 'aliases' | 'directives' | 'cost';

/** A dashboard's first screen: four balance figures of each of 50 accounts, in one request. */
const dashboard = parse(
  `query Dashboard {\n${Array.from(
    { length: 50 },
    (
      _,
      i,
    ) => `  account${i}: ledgerAccount(ledgerAccount: { path: "liabilities/users:user-${i}/available", ledger: { ik: "marketplace-ledger" } }) {
    id name
    own: ownBalance(currency: { code: USD })
    children: childBalance(currency: { code: USD })
    total: balance(currency: { code: USD })
    lastMonth: balance(currency: { code: USD }, at: "2026-10")
  }`,
  ).join('\n')}\n}`,
);

const documents: [string, DocumentNode][] = [
  ['a dashboard of 50 accounts x 4 balances', dashboard],
  ...Object.entries(sdkGenerated as Record<string, DocumentNode>).filter(([name]) => name.endsWith('Document')),
  ...readdirSync(examplesDir)
    .filter((file) => file.endsWith('.graphql'))
    .map((file) => [file, parse(readFileSync(new URL(file, examplesDir), 'utf8'))] as [string, DocumentNode]),
];

/** Every limited metric of a document, measured by the same rules that enforce them. */
function measure(document: DocumentNode): Record<DocumentLimit, number> {
  const found = { tokens: countTokens(print(document)), depth: 0, aliases: 0, directives: 0, cost: 0 };
  const keep = (limit: DocumentLimit) => ({
    onAccept: [
      (_c: unknown, { n }: { n: number }) => {
        found[limit] = Math.max(found[limit], n);
      },
    ],
  });
  const rules = [
    maxDepthRule({ n: 1e9, ignoreIntrospection: false, ...keep('depth') }),
    maxAliasesRule({ n: 1e9, ...keep('aliases') }),
    maxDirectivesRule({ n: 1e9, ...keep('directives') }),
    costLimitRule({ maxCost: 1e12, ignoreIntrospection: false, ...keep('cost') }),
  ] as ValidationRule[];
  validate(schema, document, rules);
  return found;
}

function countTokens(source: string): number {
  const lexer = new Lexer(new Source(source));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}

describe('GraphQL document limits', () => {
  it(`leave at least 2x headroom over every SDK, example and dashboard document (${documents.length} documents)`, () => {
    const worst = { tokens: 0, depth: 0, aliases: 0, directives: 0, cost: 0 };
    for (const [, document] of documents) {
      const metrics = measure(document);
      for (const limit of Object.keys(worst) as DocumentLimit[]) worst[limit] = Math.max(worst[limit], metrics[limit]);
    }
    console.info(
      'worst case over the SDK, example and dashboard documents:',
      worst,
      'limits:',
      DEFAULT_DOCUMENT_LIMITS,
    );
    for (const limit of Object.keys(worst) as DocumentLimit[]) {
      expect(DEFAULT_DOCUMENT_LIMITS[limit], limit).toBeGreaterThanOrEqual(2 * Math.max(worst[limit], 1));
    }
    expect(documents.length).toBeGreaterThan(40);
  });

  it('accept every SDK, example and dashboard document', () => {
    for (const [name, document] of documents) {
      expect(validate(schema, document, documentLimitRules(DEFAULT_DOCUMENT_LIMITS)), name).toEqual([]);
    }
  });
});
