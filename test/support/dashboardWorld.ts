import fs from 'node:fs';
import { loadSpec } from '../../src/conformance/billingExamples.js';
import { buildBillingWorld } from '../../src/conformance/replay.js';
import { gql } from './graphql.js';
import type { TestWorkspace } from './server.js';

// A workspace with something on every dashboard page, built through the public APIs: a ledger at
// +05:30 with a small chart of accounts, 45 entries over the last 100 days (tags, groups, a
// condition, a reversal), a custom link with one reconciled and one unreconciled transaction, and
// the billing contract's sample world (invoices with versions, transactions, payment flows).

export type DashboardWorld = {
  ledgerId: string;
  /** A second ledger, bound to the contract examples' wallet schema (two entry types). */
  schemaLedgerId: string;
  accounts: Record<string, string>;
  entryIds: string[];
  linkId: string;
};

const example = (name: string) =>
  JSON.parse(fs.readFileSync(new URL(`../../spec/examples/ledger/${name}.json`, import.meta.url), 'utf8')).variables;

const DAY = 86_400_000;

export async function buildDashboardWorld(baseUrl: string, workspace: TestWorkspace): Promise<DashboardWorld> {
  const call = async (query: string, variables: Record<string, unknown>) => {
    const { body } = await gql(baseUrl, workspace.token, query, variables);
    const result = Object.values(body.data ?? {})[0] as any;
    if (body.errors || result?.__typename === 'BadRequestError')
      throw new Error(`dashboard world: ${JSON.stringify(body.errors ?? result)}`);
    return result;
  };
  const ledger = { ik: 'dash' };
  const { ledger: created } = await call(
    `mutation($ledger: CreateLedgerInput!) { createLedger(ik: "dash", ledger: $ledger) {
      __typename ... on CreateLedgerResult { ledger { id } } ... on BadRequestError { code message } } }`,
    { ledger: { name: 'Dashboard ledger', balanceUTCOffset: '+05:30' } },
  );
  const { link } = await call(
    `mutation { createCustomLink(ik: "acme", name: "Acme Bank") {
      __typename ... on CreateCustomLinkResult { link { id } } ... on BadRequestError { code message } } }`,
    {},
  );
  await call(
    `mutation($link: LinkMatchInput!, $accounts: [CustomAccountInput!]!) { syncCustomAccounts(link: $link, accounts: $accounts) {
      __typename ... on BadRequestError { code message } } }`,
    {
      link: { id: link.id },
      accounts: [{ externalId: 'checking', name: 'Checking account', currency: { code: 'INR' } }],
    },
  );
  const { ledgerAccounts } = await call(
    `mutation($ledger: LedgerMatchInput!, $accounts: [CreateLedgerAccountsInput!]!) { createLedgerAccounts(ledger: $ledger, ledgerAccounts: $accounts) {
      __typename ... on CreateLedgerAccountsResult { ledgerAccounts { id path } } ... on BadRequestError { code message } } }`,
    {
      ledger,
      accounts: [
        {
          ik: 'bank',
          name: 'Bank',
          type: 'asset',
          currency: { code: 'INR' },
          childLedgerAccounts: [{ ik: 'operating', name: 'Operating account' }],
        },
        { ik: 'customers', name: 'Customers', type: 'liability', currency: { code: 'INR' } },
        { ik: 'deposits', name: 'Deposits', type: 'income', currency: { code: 'INR' } },
        { ik: 'checking', name: 'Checking', type: 'asset', linkedAccount: { linkId: link.id, externalId: 'checking' } },
      ],
    },
  );
  const accounts = Object.fromEntries(ledgerAccounts.map((account: any) => [account.path, account.id]));

  const ADD = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) {
    __typename ... on AddLedgerEntryResult { entry { id } } ... on BadRequestError { code message } } }`;
  const entryIds: string[] = [];
  const now = Date.now();
  for (let i = 0; i < 45; i++) {
    const amount = String(10_000 + ((i * 7919) % 50_000));
    const { entry } = await call(ADD, {
      ik: `deposit-${i}`,
      entry: {
        ledger,
        description: `Deposit ${i}`,
        posted: new Date(now - (100 - i * 2.2) * DAY).toISOString(),
        lines: [
          { account: { path: 'bank/operating' }, amount },
          { account: { path: 'customers' }, amount },
        ],
        tags: [{ key: 'channel', value: i % 2 ? 'web' : 'branch' }],
        groups: [{ key: 'week', value: `w${Math.floor(i / 7)}` }],
        ...(i === 44 && {
          conditions: [{ account: { path: 'bank/operating' }, precondition: { ownBalance: { gte: '0' } } }],
        }),
      },
    });
    entryIds.push(entry.id);
  }
  await call(
    `mutation($id: ID!) { reverseLedgerEntry(id: $id) { __typename ... on BadRequestError { code message } } }`,
    { id: entryIds[40] },
  );

  const { txs } = await call(
    `mutation($link: LinkMatchInput!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: $link, txs: $txs) {
      __typename ... on SyncCustomTxsResult { txs { id } } ... on BadRequestError { code message } } }`,
    {
      link: { id: link.id },
      txs: [
        {
          externalId: 'bank-tx-1',
          account: { linkId: link.id, externalId: 'checking' },
          amount: '150000',
          description: 'Customer deposit',
          posted: new Date(now - 3 * DAY).toISOString(),
        },
        {
          externalId: 'bank-tx-2',
          account: { linkId: link.id, externalId: 'checking' },
          amount: '-2000',
          description: 'Monthly fee',
          posted: new Date(now - 2 * DAY).toISOString(),
        },
      ],
    },
  );
  await call(
    `mutation($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) { __typename ... on BadRequestError { code message } } }`,
    {
      entry: {
        ledger,
        description: 'Customer deposit',
        lines: [
          { account: { path: 'checking' }, amount: '150000', tx: { id: txs[0].id } },
          { account: { path: 'deposits' }, amount: '150000' },
        ],
      },
    },
  );

  await call(
    `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }`,
    example('storeSchema'),
  );
  const { ledger: onSchema } = await call(
    `mutation($ik: SafeString!, $ledger: CreateLedgerInput!, $schema: SchemaMatchInput) { createLedger(ik: $ik, ledger: $ledger, schema: $schema) {
      __typename ... on CreateLedgerResult { ledger { id } } ... on BadRequestError { code message } } }`,
    example('createLedgerOnSchema'),
  );

  const spec = loadSpec();
  const served = new Set(
    Object.values(spec.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((item) => Object.values(item))
      .flatMap((operation) => (operation?.operationId ? [operation.operationId] : [])),
  );
  await buildBillingWorld(baseUrl, spec, workspace, served);
  return { ledgerId: created.id, schemaLedgerId: onSchema.id, accounts, entryIds, linkId: link.id };
}
