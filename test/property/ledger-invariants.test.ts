import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Properties of the ledger under random histories, through the API: whatever entries, replays
// and reversals arrive, balances equal the sums a plain model computes, replays change nothing,
// a reversal restores every balance, and the invariant checker finds nothing.

const ACCOUNTS = [
  { ik: 'cash', type: 'asset' },
  { ik: 'bank', type: 'asset' },
  { ik: 'alice', type: 'liability' },
  { ik: 'bob', type: 'liability' },
  { ik: 'sales', type: 'income' },
  { ik: 'rent', type: 'expense' },
] as const;
const SIGN: Record<string, bigint> = { asset: 1n, expense: 1n, liability: -1n, income: -1n };

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on AddLedgerEntryResult { isIkReplay entry { id } } ... on BadRequestError { code } }
}`;
const REVERSE =
  'mutation($id: ID!) { reverseLedgerEntry(id: $id) { __typename ... on ReverseLedgerEntryResult { isIkReplay } } }';
const BALANCES = `query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { ledgerAccounts(first: 200) { nodes { path ownBalance } } } }`;

/** A balanced entry: a line on `a`, and on `b` the amount that keeps the accounting equation. */
const entryArbitrary = fc
  .record({
    from: fc.constantFrom(...ACCOUNTS),
    to: fc.constantFrom(...ACCOUNTS),
    amount: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
  })
  .filter(({ from, to }) => from.ik !== to.ik);

type Operation =
  | { kind: 'post'; from: (typeof ACCOUNTS)[number]; to: (typeof ACCOUNTS)[number]; amount: bigint }
  | { kind: 'replay' }
  | { kind: 'reverse' };
const operationArbitrary: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: entryArbitrary.map((entry) => ({ kind: 'post' as const, ...entry })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'replay' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'reverse' as const }) },
);

let server: TestServer;
let workspace: TestWorkspace;
beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('Properties');
});
afterAll(() => server?.close());

const call = async (query: string, variables: Record<string, unknown>) =>
  (await gql(server.baseUrl, workspace.token, query, variables)).body.data;

describe('ledger invariants under random histories', () => {
  it('balances equal the model, replays change nothing, reversals restore, the checker is clean', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operationArbitrary, { minLength: 1, maxLength: 12 }), async (operations) => {
        run += 1;
        const ledgerIk = `prop-${run}`;
        await call('mutation($ik: SafeString!) { createLedger(ik: $ik, ledger: { name: "P" }) { __typename } }', {
          ik: ledgerIk,
        });
        await call(
          `mutation($ik: SafeString!, $accounts: [CreateLedgerAccountsInput!]!) { createLedgerAccounts(ledger: { ik: $ik }, ledgerAccounts: $accounts) { __typename } }`,
          { ik: ledgerIk, accounts: ACCOUNTS.map(({ ik, type }) => ({ ik, name: ik, type })) },
        );
        const model = new Map<string, bigint>(ACCOUNTS.map((account) => [account.ik, 0n]));
        const posted: {
          ik: string;
          id: string;
          deltas: [string, bigint][];
          reversed: boolean;
          variables: Record<string, unknown>;
        }[] = [];

        for (const [index, operation] of operations.entries()) {
          if (operation.kind === 'post') {
            // from gets +amount; to gets whatever balances it: sign(from)·a + sign(to)·b = 0.
            const toAmount = -SIGN[operation.from.type] * SIGN[operation.to.type] * operation.amount;
            const variables = {
              ik: `e-${index}`,
              entry: {
                ledger: { ik: ledgerIk },
                lines: [
                  { account: { path: operation.from.ik }, amount: operation.amount.toString() },
                  { account: { path: operation.to.ik }, amount: toAmount.toString() },
                ],
              },
            };
            const result = (await call(POST, variables)).addLedgerEntry;
            expect(result).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: false });
            const deltas: [string, bigint][] = [
              [operation.from.ik, operation.amount],
              [operation.to.ik, toAmount],
            ];
            for (const [ik, delta] of deltas) model.set(ik, model.get(ik)! + delta);
            posted.push({ ik: variables.ik, id: result.entry.id, deltas, reversed: false, variables });
          } else if (operation.kind === 'replay' && posted.length > 0) {
            const target = posted[index % posted.length];
            if (target.reversed) continue;
            const result = (await call(POST, target.variables)).addLedgerEntry;
            expect(result).toMatchObject({ isIkReplay: true, entry: { id: target.id } });
          } else if (operation.kind === 'reverse' && posted.length > 0) {
            const target = posted[index % posted.length];
            const result = (await call(REVERSE, { id: target.id })).reverseLedgerEntry;
            expect(result.isIkReplay).toBe(target.reversed);
            if (!target.reversed) for (const [ik, delta] of target.deltas) model.set(ik, model.get(ik)! - delta);
            target.reversed = true;
          }
        }
        const nodes = (await call(BALANCES, { ik: ledgerIk })).ledger.ledgerAccounts.nodes as {
          path: string;
          ownBalance: string;
        }[];
        expect(Object.fromEntries(nodes.map((node) => [node.path, BigInt(node.ownBalance)]))).toEqual(
          Object.fromEntries(model),
        );
      }),
      { numRuns: 25 },
    );
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});
