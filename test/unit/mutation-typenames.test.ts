import { parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { withMutationTypenames } from '../../src/ledger/graphql/mutationTypenames.js';

describe('withMutationTypenames', () => {
  it('selects __typename on each root field of a mutation that lacks it, once', () => {
    const document = parse(
      'mutation M { a: createCustomCurrency(customCurrency: $c) { ... on BadRequestError { code } } b: createCustomLink(ik: "x", name: "y") { __typename } }',
    );
    const printed = print(withMutationTypenames(document));
    expect(printed).toContain(
      'a: createCustomCurrency(customCurrency: $c) {\n    __typename\n    ... on BadRequestError',
    );
    expect(printed.match(/__typename/g)).toHaveLength(2);
    expect(print(withMutationTypenames(parse(printed)))).toBe(printed);
  });

  it('leaves queries, and documents without mutations, untouched', () => {
    const query = parse('query Q { ledger(ledger: { ik: "x" }) { id } } fragment F on Ledger { id }');
    expect(withMutationTypenames(query)).toBe(query);
    const mixed = parse(
      'query Q { ledger(ledger: { ik: "x" }) { id } } mutation M { deleteLedger(ledger: { ik: "x" }) { ... on DeleteLedgerResult { success } } }',
    );
    const printed = print(withMutationTypenames(mixed));
    expect(printed).toContain('query Q {\n  ledger(ledger: {ik: "x"}) {\n    id\n  }\n}');
    expect(printed).toContain('deleteLedger(ledger: {ik: "x"}) {\n    __typename');
  });
});
