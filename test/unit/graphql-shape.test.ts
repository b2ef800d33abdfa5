import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildLedgerSchema } from '../../src/ledger/graphql/executableSchema.js';
import { responseShapeProblems } from '../support/graphqlShape.js';

// The contract harness's response check must itself catch what it claims to catch.

const schema = buildLedgerSchema();
const document = parse(`mutation { addLedgerEntry(ik: "a", entry: { ledger: { ik: "l" } }) {
  __typename ... on AddLedgerEntryResult { isIkReplay entry { id posted } lines { amount type } } ... on BadRequestError { code } } }`);
const good = {
  addLedgerEntry: {
    __typename: 'AddLedgerEntryResult',
    isIkReplay: false,
    entry: { id: 'ent_1', posted: '2026-01-01T00:00:00.000Z' },
    lines: [{ amount: '5', type: 'debit' }],
  },
};

describe('responseShapeProblems', () => {
  it('accepts a response the SDL allows', () => {
    expect(responseShapeProblems(schema, document, good)).toEqual([]);
    expect(
      responseShapeProblems(schema, document, { addLedgerEntry: { __typename: 'BadRequestError', code: 'x' } }),
    ).toEqual([]);
  });

  it.each([
    ['a missing field', { ...good.addLedgerEntry, isIkReplay: undefined }, 'isIkReplay: missing'],
    ['null for a non-null field', { ...good.addLedgerEntry, isIkReplay: null }, 'null for non-null'],
    [
      'an amount that is not an Int96',
      { ...good.addLedgerEntry, lines: [{ amount: 5, type: 'debit' }] },
      'not a valid Int96',
    ],
    ['an unknown enum value', { ...good.addLedgerEntry, lines: [{ amount: '5', type: 'sideways' }] }, 'not a TxType'],
    ['a type outside the union', { ...good.addLedgerEntry, __typename: 'Ledger' }, 'is not a AddLedgerEntryResponse'],
  ])('flags %s', (_label, value, problem) => {
    const cleaned = JSON.parse(JSON.stringify({ addLedgerEntry: value }));
    expect(responseShapeProblems(schema, document, cleaned).join('\n')).toContain(problem);
  });
});
