import type { HttpCase } from './restCases.js';
import { LEDGER_WORLD } from './ledgerCases.js';
import { HOSTILE_STRINGS, type Random } from './random.js';

// Balance reads over time with what a client can get wrong: moments and periods that name no
// span, series whose granularity, duration or page does not fit, cursors from elsewhere, strong
// reads of eventual accounts. Each must be a typed refusal or a plain answer, never a fault.

const BAD_MOMENTS = [
  '2026-13',
  '2026-00',
  '2026-02-30',
  '2027-02-29',
  '2026-04-31',
  '2026-01-01T24',
  '1969',
  '1969-12-31T23',
  '10000',
  '2026-Q1',
  '2026-Q0',
  '2026-1-1T',
  '2026-01-01T00:00',
  '2026-01-01T00:00:00Z',
  ' 2026',
  '2026 ',
  '٢٠٢٦',
  '２０２６',
  '+2026',
  '-2026',
];
const GOOD_MOMENTS = [
  '1970',
  '9999',
  '2026',
  '2026-2',
  '2028-02-29',
  '2026-12-31T23',
  '1970-01-01T00',
  '9999-12-31T23',
];
const DURATIONS = [0, 1, -1, 366, -366, 1001, 2 ** 31 - 1, -(2 ** 31), 70_000_000, -70_000_000];

export function balanceCaseGenerator(token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  const read = (kind: string, field: string, variables: Record<string, unknown>, selection: string): HttpCase => ({
    kind: `balances:${kind}`,
    operation: 'ledgerAccount',
    method: 'POST',
    path: '/graphql',
    headers,
    writes: false,
    body: JSON.stringify({
      query: `query(${Object.keys(variables)
        .map((k) => `$${k}: ${TYPES[k]}`)
        .join(', ')}) {
      ledgerAccount(ledgerAccount: $m) { ${field} ${selection} } }`,
      variables,
    }),
  });
  const TYPES: Record<string, string> = {
    m: 'LedgerAccountMatchInput!',
    at: 'LastMoment',
    period: 'Period!',
    start: 'FirstMoment!',
    duration: 'Int!',
    granularity: 'Granularity!',
    first: 'Int',
    last: 'Int',
    after: 'String',
    before: 'String',
    mode: 'ReadBalanceConsistencyMode',
    currency: 'CurrencyMatchInput',
  };
  const account = (random: Random) => ({
    ledger: { ik: LEDGER_WORLD.plainLedger },
    path: random.pick(['cash', 'owed', 'cash/none', '']),
  });
  const moment = (random: Random) =>
    random.chance(0.7)
      ? random.pick(BAD_MOMENTS)
      : random.chance(0.5)
        ? random.pick(GOOD_MOMENTS)
        : random.pick(HOSTILE_STRINGS);
  const generators: ((random: Random) => HttpCase)[] = [
    (random) =>
      read(
        'at',
        `${random.pick(['ownBalance', 'childBalance', 'balance'])}(at: $at, consistencyMode: $mode)`,
        { m: account(random), at: moment(random), mode: random.pick(['strong', 'eventual', 'use_account']) },
        '',
      ),
    (random) =>
      read(
        'change',
        `${random.pick(['ownBalanceChange', 'childBalanceChange', 'balanceChange'])}(period: $period, currency: $currency)`,
        {
          m: account(random),
          period: moment(random),
          currency: random.pick([
            null,
            { code: 'USD' },
            { code: 'EUR' },
            { code: 'CUSTOM' },
            { code: 'CUSTOM', customCurrencyId: 'fz-points' },
            { code: 'USD', customCurrencyId: 'fz-points' },
          ]),
        },
        '',
      ),
    (random) =>
      read(
        'series',
        `${random.pick(['ownBalancesDuring', 'childBalanceChangesDuring', 'balancesDuring'])}(startTime: $start, duration: $duration, granularity: $granularity, first: $first, last: $last, after: $after, before: $before)`,
        {
          m: account(random),
          start: random.chance(0.5) ? random.pick(GOOD_MOMENTS) : moment(random),
          duration: random.pick(DURATIONS),
          granularity: random.pick(['hourly', 'daily', 'monthly']),
          first: random.pick([null, 0, 1, 1000, 1001, -1]),
          last: random.pick([null, 3, 2000]),
          after: random.pick([null, 'eyJ4IjoxfQ.AAAA', random.pick(HOSTILE_STRINGS)]),
          before: random.pick([null, 'x.y']),
        },
        '{ startTime endTime nodes { __typename } pageInfo { hasNextPage endCursor } }',
      ),
  ];
  return { next: (random: Random) => random.pick(generators)(random) };
}
