import type { HttpCase } from './restCases.js';
import { HOSTILE_STRINGS, type Random } from './random.js';

// Links, custom currencies, synced accounts and transactions, reconciliation and payments,
// with what a client can get wrong: limits, tampered ids, odd text, mismatched amounts and
// currencies. Every case carries at least one fault the server must find before writing, so
// each is a typed refusal and the world stays as seeded.

export const LINK_WORLD = {
  linkIk: 'fz-link',
  linkName: 'Fuzz bank',
  ledger: 'fz-reconciled',
  /** The seeded external account (USD) and its one transaction, already reconciled. */
  account: 'fz-ops',
  tx: { externalId: 'fz-tx-1', amount: '500', posted: '2026-05-01T00:00:00.000Z' },
  currency: 'fz-points',
};

export type LinkWorldIds = { linkId: string; accountId: string; txId: string };

const UNKNOWN = {
  link: 'link_00000000000000000000000000',
  account: 'xacct_00000000000000000000000000',
  tx: 'tx_00000000000000000000000000',
};

export function linkCaseGenerator(token: string, ids: LinkWorldIds) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  const post = (kind: string, operation: string, query: string, variables: Record<string, unknown>): HttpCase => ({
    kind: `links:${kind}`,
    operation,
    method: 'POST',
    path: '/graphql',
    headers,
    body: JSON.stringify({ query, variables }),
    writes: true,
  });
  const hostile = (random: Random) => random.pick(HOSTILE_STRINGS);
  const someId = (random: Random) =>
    random.pick([ids.linkId, ids.accountId, ids.txId, UNKNOWN.tx, 'tx_', hostile(random)]);
  const account = (random: Random) =>
    random.pick<Record<string, unknown>>([
      { id: ids.accountId },
      { linkId: ids.linkId, externalId: LINK_WORLD.account },
      { externalId: LINK_WORLD.account },
      { id: UNKNOWN.account },
      {},
      { id: ids.accountId, linkId: UNKNOWN.link, externalId: hostile(random) },
    ]);
  // A refused tail: whatever comes before it, the whole call must be refused.
  const badTx = (random: Random) =>
    random.pick<Record<string, unknown>>([
      {
        externalId: LINK_WORLD.tx.externalId,
        account: { id: ids.accountId },
        amount: '501',
        description: 'x',
        posted: LINK_WORLD.tx.posted,
      },
      {
        externalId: 'fz-new',
        account: { id: ids.accountId },
        amount: '1',
        description: 'x',
        posted: '2026-05-02',
        currency: { code: 'EUR' },
      },
      { externalId: 'fz-new', account: { id: UNKNOWN.account }, amount: '1', description: 'x', posted: '2026-05-02' },
      {
        externalId: 'fz-new',
        account: { id: ids.accountId },
        amount: '1',
        description: 'd'.repeat(1025),
        posted: '2026-05-02',
      },
      {
        externalId: 'fz-new',
        account: { externalId: LINK_WORLD.account },
        amount: '1',
        description: 'x',
        posted: '2026-05-02',
      },
      {
        externalId: 'fz-new',
        account: { id: ids.accountId },
        amount: '1',
        description: 'x',
        posted: '2026-05-02',
        currency: { code: 'CUSTOM' },
      },
    ]);
  const reconcileLines = (random: Random) =>
    random.pick<unknown[]>([
      [
        { account: { path: 'bank' }, amount: '499', tx: { id: ids.txId } },
        { account: { path: 'sales' }, amount: '499' },
      ],
      [
        { account: { path: 'bank' }, amount: '500', tx: { id: ids.txId } },
        { account: { path: 'sales' }, amount: '500' },
        { account: { path: 'sales' }, amount: '0' },
      ],
      [
        { account: { path: 'bank' }, amount: '500', tx: { id: someId(random) } },
        { account: { path: 'sales' }, amount: '500' },
      ],
      [
        { account: { path: 'bank' }, amount: '500', tx: { externalId: hostile(random) } },
        { account: { path: 'sales' }, amount: '500' },
      ],
      [
        { account: { path: 'bank' }, amount: '500', tx: {} },
        { account: { path: 'sales' }, amount: '500' },
      ],
      [
        { account: { path: 'bank' }, amount: '500' },
        { account: { path: 'sales' }, amount: '500' },
      ],
      [
        { account: { path: 'sales' }, amount: '500', tx: { id: ids.txId } },
        { account: { path: 'bank' }, amount: '-500' },
      ],
      [
        {
          account: { path: 'bank' },
          amount: '500',
          tx: { externalId: LINK_WORLD.tx.externalId, accountId: UNKNOWN.account },
        },
        { account: { path: 'sales' }, amount: '500' },
      ],
    ]);

  const generators: ((random: Random) => HttpCase)[] = [
    (random) =>
      post(
        'currency',
        'createCustomCurrency',
        `mutation($c: CreateCustomCurrencyInput!) { createCustomCurrency(customCurrency: $c) { __typename ... on BadRequestError { code } } }`,
        {
          c: random.pick([
            { customCurrencyId: 'c'.repeat(random.int(37, 200)), customCode: 'C', name: 'C', precision: 2 },
            {
              customCurrencyId: `fz-${random.int(0, 99)}`,
              customCode: hostile(random).slice(0, 36),
              name: hostile(random),
              precision: random.pick([-1, 19, 2 ** 31 - 1]),
            },
            { customCurrencyId: LINK_WORLD.currency, customCode: 'OTHER', name: 'Fuzz points', precision: 0 },
            {
              customCurrencyId: `fz-${random.int(0, 99)}`,
              customCode: random.pick(['', ' ', 'C'.repeat(37)]),
              name: 'C',
              precision: 2,
            },
          ]),
        },
      ),
    (random) =>
      post(
        'link',
        'createCustomLink',
        `mutation($ik: SafeString!, $name: String!) { createCustomLink(ik: $ik, name: $name) { __typename ... on BadRequestError { code } } }`,
        random.chance(0.5)
          ? { ik: LINK_WORLD.linkIk, name: `${hostile(random)}!` }
          : { ik: `fz-${random.int(0, 999)}`, name: random.pick(['', '   ', 'n'.repeat(257)]) },
      ),
    (random) =>
      post(
        'accounts',
        'syncCustomAccounts',
        `mutation($l: ID!, $a: [CustomAccountInput!]!) { syncCustomAccounts(link: { id: $l }, accounts: $a) { __typename ... on BadRequestError { code } } }`,
        {
          l: random.pick([ids.linkId, ids.linkId, UNKNOWN.link, hostile(random)]),
          a: [
            ...Array.from({ length: random.pick([0, 1, 3]) }, () => ({
              externalId: `fz-a${random.int(0, 99)}`,
              name: hostile(random),
            })),
            random.pick([
              { externalId: LINK_WORLD.account, name: 'Ops', currency: { code: 'EUR' } },
              { externalId: LINK_WORLD.account, name: 'Ops', currencyMode: 'multi' },
              { externalId: 'fz-multi', name: 'M', currencyMode: 'multi', currency: { code: 'USD' } },
              { externalId: 'fz-blank', name: ' ' },
              { externalId: 'fz-custom', name: 'C', currency: { code: 'CUSTOM', customCurrencyId: 'fz-missing' } },
            ]),
          ],
        },
      ),
    (random) =>
      post(
        'accounts-limit',
        'syncCustomAccounts',
        `mutation($l: ID!, $a: [CustomAccountInput!]!) { syncCustomAccounts(link: { id: $l }, accounts: $a) { __typename ... on BadRequestError { code } } }`,
        {
          l: ids.linkId,
          a: Array.from({ length: random.pick([0, 101, 150]) }, (_, index) => ({
            externalId: `fz-l${index}`,
            name: 'L',
          })),
        },
      ),
    (random) =>
      post(
        'txs',
        'syncCustomTxs',
        `mutation($l: ID!, $t: [CustomTxInput!]!) { syncCustomTxs(link: { id: $l }, txs: $t) { __typename ... on BadRequestError { code } } }`,
        {
          l: random.pick([ids.linkId, ids.linkId, UNKNOWN.link]),
          t: [
            ...Array.from({ length: random.pick([0, 1, 2]) }, () => ({
              externalId: `fz-t${random.int(0, 99)}`,
              account: account(random),
              amount: String(random.int(-1000, 1000)),
              description: hostile(random),
              posted: '2026-05-03',
            })),
            badTx(random),
          ],
        },
      ),
    (random) =>
      post(
        'txs-limit',
        'syncCustomTxs',
        `mutation($l: ID!, $t: [CustomTxInput!]!) { syncCustomTxs(link: { id: $l }, txs: $t) { __typename ... on BadRequestError { code } } }`,
        {
          l: ids.linkId,
          t: Array.from({ length: random.pick([0, 101]) }, (_, index) => ({
            externalId: `fz-x${index}`,
            account: { id: ids.accountId },
            amount: '1',
            description: 'x',
            posted: '2026-05-03',
          })),
        },
      ),
    (random) =>
      post(
        'delete',
        'deleteCustomTxs',
        `mutation($t: [ID!]!) { deleteCustomTxs(txs: $t) { __typename ... on BadRequestError { code } } }`,
        {
          t: random.pick([
            [ids.txId],
            [UNKNOWN.tx],
            [ids.txId, UNKNOWN.tx],
            [hostile(random)],
            [],
            Array.from({ length: 101 }, () => UNKNOWN.tx),
          ]),
        },
      ),
    (random) =>
      post(
        'reconcile',
        'reconcileTx',
        `mutation($e: LedgerEntryInput!) { reconcileTx(entry: $e) { __typename ... on BadRequestError { code } } }`,
        {
          e: {
            ledger: random.pick([{ ik: LINK_WORLD.ledger }, { ik: LINK_WORLD.ledger }, { ik: 'fz-missing' }]),
            lines: reconcileLines(random),
            ...(random.chance(0.2) ? { posted: '2026-05-01' } : {}),
            ...(random.chance(0.2) ? { description: hostile(random) } : {}),
          },
        },
      ),
    (random) =>
      post(
        'linked-entry',
        'addLedgerEntry',
        `mutation($ik: SafeString!, $e: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $e) { __typename ... on BadRequestError { code } } }`,
        {
          ik: `fz-linked-${random.int(0, 1e6)}`,
          e: {
            ledger: { ik: LINK_WORLD.ledger },
            lines: [
              { account: { path: 'bank' }, amount: '5', ...(random.chance(0.5) ? { tx: { id: ids.txId } } : {}) },
              { account: { path: 'sales' }, amount: '5' },
            ],
          },
        },
      ),
    (random) =>
      post(
        'payment',
        'createPayment',
        `mutation($ik: SafeString!, $l: LedgerMatchInput!, $a: Int96, $p: CreatePaymentInput) {
      createPayment(ik: $ik, ledger: $l, amount: $a, payment: $p) { __typename ... on BadRequestError { code } } }`,
        {
          ik: `fz-pay-${random.int(0, 1e6)}`,
          l: { ik: LINK_WORLD.ledger },
          ...random.pick<Record<string, unknown>>([
            { a: random.pick(['0', '99', '10000001', '-500', (1n << 119n).toString()]) },
            { a: '500', p: { type: 'checkout', parameters: {} } },
            {},
            {
              p: {
                type: random.pick(['checkout', hostile(random).slice(0, 100) || 'x']),
                parameters: random.pick([{ price: { nested: '1' } }, { price: ['1'] }, 'flat', 7, { price: null }]),
              },
            },
            { p: { type: 'nope', typeVersion: random.int(-3, 3), parameters: { price: '1' } } },
          ]),
        },
      ),
  ];
  return { next: (random: Random) => random.pick(generators)(random) };
}
