import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { sandboxServerForFile, type SandboxWorkspace } from '../support/sandbox.js';

// Eventual balances on demand: a held fold makes a workspace's eventual reads lag while strong
// reads stay exact; settle folds everything now; release lets the fold run again. Another
// workspace folds and reads as usual throughout.

const sandbox = sandboxServerForFile();

const POST = `mutation($ik: SafeString!, $amount: Int96!) { addLedgerEntry(ik: $ik, entry: { ledger: { ik: "books" }, posted: "2026-06-02T10:00:00Z",
  lines: [{ account: { path: "bank" }, amount: $amount }, { account: { path: "owed" }, amount: $amount }] }) { __typename } }`;

async function ledgerWorkspace(name: string) {
  const workspace = await sandbox.admin.workspace(name);
  const created = await gql(
    sandbox.server.baseUrl,
    workspace.token,
    `mutation { createLedger(ik: "books", ledger: { name: "Books" }) { __typename }
      createLedgerAccounts(ledger: { ik: "books" }, ledgerAccounts: [
        { ik: "bank", name: "Bank", type: asset, consistencyConfig: { ownBalanceUpdates: eventual } },
        { ik: "owed", name: "Owed", type: liability, consistencyConfig: { ownBalanceUpdates: strong } }]) { __typename } }`,
  );
  expect(created.body.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
  return workspace;
}

async function post(workspace: SandboxWorkspace, ik: string, amount: string) {
  const answer = await gql(sandbox.server.baseUrl, workspace.token, POST, { ik, amount });
  expect(answer.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
}

/** The figures a client reads: the eventual account by its setting and asked eventual, its June series, the strong account. */
async function figures(workspace: SandboxWorkspace) {
  const answer = await gql(
    sandbox.server.baseUrl,
    workspace.token,
    `{ bank: ledgerAccount(ledgerAccount: { ledger: { ik: "books" }, path: "bank" }) {
         ownBalance eventual: ownBalance(consistencyMode: eventual) june: ownBalanceChange(period: "2026-06")
         ownBalancesDuring(startTime: "2026-06", duration: 3, granularity: daily) { nodes { amount { amount } } } }
       owed: ledgerAccount(ledgerAccount: { ledger: { ik: "books" }, path: "owed" }) {
         ownBalance strong: ownBalance(consistencyMode: strong) june: ownBalance(at: "2026-06", consistencyMode: eventual) } }`,
  );
  const { bank, owed } = answer.body.data;
  return {
    bank: bank.ownBalance,
    bankEventual: bank.eventual,
    bankJune: bank.june,
    bankSeries: bank.ownBalancesDuring.nodes.map((node: any) => node.amount.amount),
    owed: owed.ownBalance,
    owedStrong: owed.strong,
    // A strong account read eventual: its settled history, open hours and queue left out.
    owedJune: owed.june,
  };
}

const fold = async (workspace: SandboxWorkspace, action = '') =>
  (await sandbox.admin.call(action ? 'POST' : 'GET', `/workspaces/${workspace.workspaceId}/balances${action}`)).body
    .data;

describe('holding the fold back', () => {
  it('makes eventual reads lag while strong ones stay exact, until a settle or a release', async () => {
    const [held, neighbour] = [await ledgerWorkspace('held'), await ledgerWorkspace('neighbour')];
    await post(held, 'before', '7');
    expect(await fold(held, '/settle')).toEqual({ held: false, pending: 0 });

    expect(await fold(held, '/hold')).toEqual({ held: true, pending: 0 });
    expect(await fold(held, '/hold')).toEqual({ held: true, pending: 0 }); // holding twice is one hold
    for (const n of [1, 2, 3]) await post(held, `e${n}`, '5');
    await post(neighbour, 'n1', '4');
    await sleep(300); // six fold rounds of the test server: none takes the held workspace's deltas

    const lagging = {
      bank: '7',
      bankEventual: '7',
      bankJune: '7',
      bankSeries: ['0', '7', '7'],
      owed: '22',
      owedStrong: '22',
      owedJune: '7',
    };
    expect(await figures(held)).toEqual(lagging);
    expect((await fold(held)).pending).toBeGreaterThan(0);
    // The neighbour was folded and reads everything.
    expect(await fold(neighbour)).toEqual({ held: false, pending: 0 });
    expect((await figures(neighbour)).bank).toBe('4');

    expect(await fold(held, '/settle')).toEqual({ held: true, pending: 0 });
    const settled = {
      ...lagging,
      bank: '22',
      bankEventual: '22',
      bankJune: '22',
      bankSeries: ['0', '22', '22'],
      owedJune: '22',
    };
    expect(await figures(held)).toEqual(settled);

    // Still held: the next posting lags again, then release shows it at once.
    await post(held, 'e4', '10');
    expect(await figures(held)).toEqual({ ...settled, owed: '32', owedStrong: '32' });
    expect((await fold(held, '/release')).held).toBe(false);
    const released = {
      bank: '32',
      bankEventual: '32',
      bankJune: '32',
      bankSeries: ['0', '32', '32'],
      owed: '32',
      owedStrong: '32',
      owedJune: '32',
    };
    expect(await figures(held)).toEqual(released);
    for (let i = 0; i < 50 && (await fold(held)).pending > 0; i++) await sleep(50);
    expect(await fold(held)).toEqual({ held: false, pending: 0 });
    expect(await figures(held)).toEqual(released);
    expect(await checkLedgerInvariants(sandbox.server.db.sql)).toEqual([]);
  });

  it('ends with the workspace: a deleted workspace leaves no hold behind', async () => {
    const workspace = await ledgerWorkspace('gone');
    await fold(workspace, '/hold');
    await sandbox.admin.call('DELETE', `/workspaces/${workspace.workspaceId}`);
    const [{ holds }] = await sandbox.server.db.sql<{ holds: number }[]>`
      select count(*)::int as holds from sandbox_fold_holds where workspace_id = ${workspace.workspaceId}`;
    expect(holds).toBe(0);
    const missing = await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/balances/hold`);
    expect([missing.status, missing.body.code]).toEqual([404, 'workspace_not_found']);
  });
});
