import { DEFAULT_DOCUMENT_LIMITS as DOCUMENT_LIMITS } from '../../src/ledger/graphql/documentLimits.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

// The documents an attacker sends: each would keep an unguarded server busy for seconds or more.
export const ATTACKS = {
  nestedAliases: `{ ${range(25)
    .map((i) => `a${i}: ledgers(first: 200) { nodes { schema { ledgers(first: 200) { nodes { id name } } } } }`)
    .join(' ')} }`,
  aliases: `{ ${range(DOCUMENT_LIMITS.aliases + 20)
    .map((i) => `a${i}: ledgers(first: 200) { nodes { id name } }`)
    .join(' ')} }`,
  fanOut: `query { ...F0 }\n${range(40)
    .map((i) => `fragment F${i} on Query { workspace { id } ${i < 39 ? `...F${i + 1} ...F${i + 1}` : ''} }`)
    .join('\n')}`,
  nestedFanOut: `query { ledgers { nodes { ...L0 } } }\n${range(30)
    .map(
      (i) =>
        `fragment L${i} on Ledger { id ${i < 29 ? `schema { ledgers { nodes { ...L${i + 1} } } } s${i}: schema { ledgers { nodes { ...L${i + 1} } } }` : ''} }`,
    )
    .join('\n')}`,
  depth: `{ ${'ledgers { nodes { schema { '.repeat(8)} key ${'} } } '.repeat(8)} }`,
  directives: `{ workspace ${range(DOCUMENT_LIMITS.directives + 5)
    .map(() => '@include(if: true)')
    .join(' ')} { id } }`,
  tokens: `{ workspace { ${'id '.repeat(DOCUMENT_LIMITS.tokens)} } }`,
};
