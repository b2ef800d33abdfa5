import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// A model-based property of balance history: random entries, most of them backdated relative
// to one another, some reversed, on a three-level tree in two currencies, on ledgers at offsets
// that are not whole hours. Every historical read of the API must equal a brute-force sum over
// the posted lines, computed here from the instants alone, without the server's calendar code.
// PROPERTY_RUNS raises the run count for a long run (make test-long).

const RUNS = Number(process.env.PROPERTY_RUNS ?? 500);
const OFFSETS = ['+05:30', '+05:45', '-03:30', '-09:30', '-08:00', '+00:00', '+14:00', '-12:00'];
const TREE = ['r', 'r/a', 'r/b', 'r/a/x', 'r/a/y'];
const CURRENCIES = ['USD', 'EUR'];
// Postings fall in 2025-12-20 .. 2026-03-10 UTC: a year boundary, month ends, a February.
const WINDOW_START = Date.UTC(2025, 11, 20);
const WINDOW_MS = 80 * 86_400_000;

type Line = { path: string; currency: string; amount: bigint; posted: number };
type Scope = 'own' | 'child' | 'total';
type Moment = { year: number; month?: number; day?: number; hour?: number };

let server: TestServer;
let workspace: TestWorkspace;
beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('History');
});
afterAll(() => server?.close());

const call = async (query: string, variables: Record<string, unknown> = {}) =>
  (await gql(server.baseUrl, workspace.token, query, variables)).body;

const offsetMinutes = (offset: string) =>
  (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
const inScope = (path: string, account: string, scope: Scope) =>
  (scope !== 'child' && path === account) || (scope !== 'own' && path.startsWith(`${account}/`));

/** [start, end) of a moment in local wall-clock ms, by plain calendar arithmetic. */
function spanOf(moment: Moment): [number, number] {
  const { year, month, day, hour } = moment;
  if (month === undefined) return [Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)];
  if (day === undefined) return [Date.UTC(year, month - 1, 1), Date.UTC(year, month, 1)];
  if (hour === undefined) return [Date.UTC(year, month - 1, day), Date.UTC(year, month - 1, day + 1)];
  return [Date.UTC(year, month - 1, day, hour), Date.UTC(year, month - 1, day, hour + 1)];
}

const text = (moment: Moment, padded: boolean) => {
  const p = (n: number) => (padded ? String(n).padStart(2, '0') : String(n));
  return [
    String(moment.year),
    moment.month && `-${p(moment.month)}`,
    moment.day && `-${p(moment.day)}`,
    moment.hour !== undefined && moment.day ? `T${p(moment.hour)}` : '',
  ]
    .filter(Boolean)
    .join('');
};

const momentArbitrary: fc.Arbitrary<Moment> = fc
  .record({
    year: fc.constantFrom(2025, 2026),
    month: fc.constantFrom(1, 2, 3, 12),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    depth: fc.integer({ min: 0, max: 3 }),
  })
  .map(({ year, month, day, hour, depth }) =>
    depth === 0
      ? { year }
      : depth === 1
        ? { year, month }
        : depth === 2
          ? { year, month, day }
          : { year, month, day, hour },
  );

const entryArbitrary = fc.record({
  path: fc.constantFrom(...TREE),
  currency: fc.constantFrom(...CURRENCIES),
  amount: fc.oneof(fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n })),
  posted: fc.integer({ min: 0, max: WINDOW_MS - 1 }).map((ms) => WINDOW_START + ms),
});

const seriesArbitrary = fc
  .record({
    unit: fc.constantFrom('hourly', 'daily', 'monthly'),
    start: momentArbitrary,
    duration: fc.integer({ min: -40, max: 40 }).filter((n) => n !== 0),
  })
  .map(({ unit, start, duration }) => {
    // The start must be written as a longer span than the granularity.
    const rank = unit === 'hourly' ? 0 : unit === 'daily' ? 1 : 2;
    const spanRank = start.hour !== undefined ? 0 : start.day !== undefined ? 1 : start.month !== undefined ? 2 : 3;
    return { unit, start: spanRank > rank ? start : { year: start.year }, duration };
  });

const readArbitrary = fc.record({
  account: fc.constantFrom(...TREE),
  scope: fc.constantFrom<Scope>('own', 'child', 'total'),
  currency: fc.constantFrom(...CURRENCIES),
  at: momentArbitrary,
  period: momentArbitrary,
  quarter: fc.option(fc.integer({ min: 1, max: 4 })),
  padded: fc.boolean(),
  series: seriesArbitrary,
});

const field = { own: 'ownBalance', child: 'childBalance', total: 'balance' } as const;
const plural = { own: 'ownBalances', child: 'childBalances', total: 'balances' } as const;

function stepLocal(local: number, unit: string, count: number): number {
  if (unit === 'hourly') return local + count * 3_600_000;
  if (unit === 'daily') return local + count * 86_400_000;
  const d = new Date(local);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + count, 1);
}

describe('balance history against a brute-force oracle', () => {
  it(
    `answers every read as the sum of its lines (${RUNS} runs)`,
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...OFFSETS),
          fc.array(entryArbitrary, { minLength: 1, maxLength: 12 }),
          fc.array(fc.nat(), { maxLength: 2 }),
          fc.array(readArbitrary, { minLength: 1, maxLength: 3 }),
          async (offset, entries, reversals, reads) => {
            run += 1;
            const ledger = `hist-${run}`;
            const shift = offsetMinutes(offset) * 60_000;
            await call(
              'mutation($ik: SafeString!, $offset: UTCOffset!) { createLedger(ik: $ik, ledger: { name: "H", balanceUTCOffset: $offset }) { __typename } }',
              { ik: ledger, offset },
            );
            // r/a is strongly updated (history written in the posting); the rest go through the fold.
            const created = await call(
              `mutation($ik: SafeString!) { createLedgerAccounts(ledger: { ik: $ik }, ledgerAccounts: [
          { ik: "r", name: "R", type: asset, currencyMode: multi, childLedgerAccounts: [
            { ik: "a", name: "A", consistencyConfig: { ownBalanceUpdates: strong }, childLedgerAccounts: [{ ik: "x", name: "X" }, { ik: "y", name: "Y" }] },
            { ik: "b", name: "B" }] },
          { ik: "eq", name: "Equity", type: liability, currencyMode: multi }]) { __typename } }`,
              { ik: ledger },
            );
            expect(created.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');

            const batch = entries.map((entry, index) => ({
              ik: `e${index}`,
              entry: {
                ledger: { ik: ledger },
                posted: new Date(entry.posted).toISOString(),
                lines: [
                  {
                    account: { path: entry.path },
                    amount: entry.amount.toString(),
                    currency: { code: entry.currency },
                  },
                  { account: { path: 'eq' }, amount: entry.amount.toString(), currency: { code: entry.currency } },
                ],
              },
            }));
            const posted = await call(
              `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) {
          __typename ... on AddLedgerEntriesResult { results { entry { id } } } ... on Error { code message } } }`,
              { entries: batch },
            );
            expect(posted.data.addLedgerEntries.__typename).toBe('AddLedgerEntriesResult');
            const ids: string[] = posted.data.addLedgerEntries.results.map(
              (result: { entry: { id: string } }) => result.entry.id,
            );

            const lines: Line[] = entries.map((entry) => ({
              path: entry.path,
              currency: entry.currency,
              amount: entry.amount,
              posted: entry.posted,
            }));
            for (const pick of new Set(reversals.map((n) => n % entries.length))) {
              const reversed = await call('mutation($id: ID!) { reverseLedgerEntry(id: $id) { __typename } }', {
                id: ids[pick],
              });
              expect(reversed.data.reverseLedgerEntry.__typename).toBe('ReverseLedgerEntryResult');
              lines.push({ ...lines[pick], amount: -lines[pick].amount });
            }

            const sum = (account: string, scope: Scope, currency: string, from: number, to: number) =>
              lines
                .filter(
                  (line) =>
                    line.currency === currency &&
                    inScope(line.path, account, scope) &&
                    line.posted + shift >= from &&
                    line.posted + shift < to,
                )
                .reduce((total, line) => total + line.amount, 0n)
                .toString();

            const selections: string[] = [];
            const expected: Record<string, unknown> = {};
            reads.forEach((read, i) => {
              const currency = `currency: { code: ${read.currency} }`;
              const [, atEnd] = spanOf(read.at);
              selections.push(`a${i}: ledgerAccount(ledgerAccount: { path: "${read.account}", ledger: { ik: "${ledger}" } }) {
            at: ${field[read.scope]}(${currency}, at: "${text(read.at, read.padded)}")
            all: ${plural[read.scope]}(at: "${text(read.at, read.padded)}") { nodes { currency { code } amount } }`);
              const allAt = [...CURRENCIES]
                .sort()
                .map((code) => ({ code, amount: sum(read.account, read.scope, code, -Infinity, atEnd) }));
              const node: Record<string, unknown> = {
                at: sum(read.account, read.scope, read.currency, -Infinity, atEnd),
                // A currency is listed once a line in it is posted by then, even if they sum to zero.
                all: {
                  nodes: allAt
                    .filter(({ code }) =>
                      lines.some(
                        (line) =>
                          line.currency === code &&
                          inScope(line.path, read.account, read.scope) &&
                          line.posted + shift < atEnd,
                      ),
                    )
                    .map(({ code, amount }) => ({ currency: { code }, amount })),
                },
              };

              let period = text(read.period, read.padded);
              let [from, to] = spanOf(read.period);
              if (read.quarter !== null) {
                period = `${read.period.year}-Q${read.quarter}`;
                from = Date.UTC(read.period.year, (read.quarter - 1) * 3, 1);
                to = Date.UTC(read.period.year, read.quarter * 3, 1);
              }
              selections.push(`change: ${field[read.scope]}Change(${currency}, period: "${period}")`);
              node.change = sum(read.account, read.scope, read.currency, from, to);

              const { unit, start, duration } = read.series;
              const [startLocal] = spanOf(start);
              const first = duration > 0 ? startLocal : stepLocal(startLocal, unit, duration);
              const seriesField = read.scope === 'total' ? 'balancesDuring' : `${read.scope}BalancesDuring`;
              const changesField =
                read.scope === 'total' ? 'balanceChangesDuring' : `${read.scope}BalanceChangesDuring`;
              const args = `${currency}, startTime: "${text(start, read.padded)}", duration: ${duration}, granularity: ${unit}`;
              selections.push(`series: ${seriesField}(${args}) { nodes { amount { amount } } }
            changes: ${changesField}(${args}) { nodes { amount { amount } } } }`);
              const buckets = Array.from({ length: Math.abs(duration) }, (_, k) => [
                stepLocal(first, unit, k),
                stepLocal(first, unit, k + 1),
              ]);
              node.series = {
                nodes: buckets.map(([, end]) => ({
                  amount: { amount: sum(read.account, read.scope, read.currency, -Infinity, end) },
                })),
              };
              node.changes = {
                nodes: buckets.map(([low, high]) => ({
                  amount: { amount: sum(read.account, read.scope, read.currency, low, high) },
                })),
              };
              expected[`a${i}`] = node;
            });
            const answer = await call(`{ ${selections.join('\n')} }`);
            expect(answer.errors).toBeUndefined();
            expect(answer.data).toEqual(expected);
          },
        ),
        { numRuns: RUNS },
      );
      expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
    },
    Math.max(600_000, RUNS * 1000),
  );
});
