import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coffeeProduct } from '../support/billingFixtures.js';
import { gql } from '../support/graphql.js';
import { rest } from '../support/rest.js';
import { sandboxServerForFile, type SandboxWorkspace } from '../support/sandbox.js';
import { fetchToken } from '../support/token.js';
import { retireSandboxClocks } from '../../src/db/sandbox/clocks.js';

// A clock per workspace: frozen, advanced, set running, released. What the workspace writes is
// stamped with its clock, what it reads "now" reads its clock, its tokens expire by it, and no
// other workspace notices. Time goes back only as far as the workspace's data allows.

const sandbox = sandboxServerForFile();

const clock = (workspace: SandboxWorkspace, action: string, body?: unknown) =>
  sandbox.admin.call(
    action === '' ? 'GET' : action === 'release' ? 'DELETE' : 'POST',
    `/workspaces/${workspace.workspaceId}/clock${action && action !== 'release' ? `/${action}` : ''}`,
    body,
  );

const graphql = async (workspace: SandboxWorkspace, query: string, variables: Record<string, unknown> = {}) =>
  (await gql(sandbox.server.baseUrl, workspace.token, query, variables)).body;

const POST = `mutation($ik: SafeString!, $posted: DateTime) { addLedgerEntry(ik: $ik, entry: { ledger: { ik: "books" }, posted: $posted,
  lines: [{ account: { path: "bank" }, amount: "10" }, { account: { path: "owed" }, amount: "10" }] }) {
  __typename ... on AddLedgerEntryResult { entry { posted created } } } }`;

async function books(workspace: SandboxWorkspace, offset = '+00:00') {
  const created = await graphql(
    workspace,
    `
      mutation ($offset: UTCOffset!) {
        createLedger(ik: "books", ledger: { name: "Books", balanceUTCOffset: $offset }) {
          __typename
          ... on CreateLedgerResult {
            ledger {
              created
            }
          }
        }
        createLedgerAccounts(
          ledger: { ik: "books" }
          ledgerAccounts: [{ ik: "bank", name: "Bank", type: asset }, { ik: "owed", name: "Owed", type: liability }]
        ) {
          __typename
          ... on CreateLedgerAccountsResult {
            ledgerAccounts {
              created
            }
          }
        }
      }
    `,
    { offset },
  );
  return created.data;
}

const bank = async (workspace: SandboxWorkspace, fields = 'ownBalance') =>
  (
    await graphql(
      workspace,
      `{ ledgerAccount(ledgerAccount: { ledger: { ik: "books" }, path: "bank" }) { ${fields} } }`,
    )
  ).data.ledgerAccount;

describe('a frozen clock', () => {
  it('stamps what the workspace writes, moves only when advanced, and leaves other workspaces on real time', async () => {
    const [frozen, realTime] = [await sandbox.admin.workspace('frozen'), await sandbox.admin.workspace('real')];
    const frozenAt = '2026-03-10T10:20:00.000Z';
    expect((await clock(frozen, 'freeze', { at: '2026-03-10T11:20:00+01:00' })).body.data).toEqual({
      mode: 'frozen',
      now: frozenAt,
    });
    await sleep(20);
    expect((await clock(frozen, '')).body.data).toEqual({ mode: 'frozen', now: frozenAt });

    const ledger = await books(frozen);
    expect(ledger.createLedger.ledger.created).toBe(frozenAt);
    expect(ledger.createLedgerAccounts.ledgerAccounts.map((a: any) => a.created)).toEqual([frozenAt, frozenAt]);
    const entry = (await graphql(frozen, POST, { ik: 'e1' })).data.addLedgerEntry.entry;
    expect(entry).toEqual({ posted: frozenAt, created: frozenAt });
    expect(
      (await rest(sandbox.server.baseUrl, 'POST', '/billing/products', { token: frozen.token, body: coffeeProduct }))
        .body.data.created,
    ).toBe(frozenAt);
    const line = {
      description: 'beans',
      product_id: 'coffee',
      type: 'payin',
      user: { external_id: 'ann' },
      currency_code: 'USD',
      price: { amount: '100' },
    };
    const invoice = (
      await rest(sandbox.server.baseUrl, 'POST', '/billing/invoices', {
        token: frozen.token,
        body: { invoice_id: 'inv-1', line_items: [line] },
      })
    ).body.data;
    expect(invoice.created).toBe(frozenAt);
    const stored = async () =>
      (
        await sandbox.server.db.sql<{ created: Date; modified: Date }[]>`
        select created, modified from invoices where workspace_id = ${frozen.workspaceId} and id = 'inv-1'`
      )[0];
    // Not yet changed: `modified` stays empty, as in real time.
    expect(await stored()).toEqual({ created: new Date(frozenAt), modified: null });

    const advanced = await clock(frozen, 'advance', { by: 'PT1H30M' });
    expect(advanced.body.data).toEqual({ mode: 'frozen', now: '2026-03-10T11:50:00.000Z' });
    expect((await graphql(frozen, POST, { ik: 'e2' })).data.addLedgerEntry.entry.posted).toBe(
      '2026-03-10T11:50:00.000Z',
    );
    const patched = await rest(sandbox.server.baseUrl, 'PATCH', '/billing/invoices/inv-1', {
      token: frozen.token,
      body: { current_invoice_version: 1, tags: { set: [{ key: 'stage', value: 'sent' }] } },
    });
    expect(patched.body.data.version).toBe(2);
    expect(await stored()).toEqual({ created: new Date(frozenAt), modified: new Date('2026-03-10T11:50:00.000Z') });

    // The other workspace writes in real time meanwhile.
    const real = await books(realTime);
    expect(Math.abs(Date.parse(real.createLedger.ledger.created) - Date.now())).toBeLessThan(60_000);
    expect((await clock(realTime, '')).body.data.mode).toBe('real');
  });

  it('reads balances without `at` at the clock: entries posted after its now do not count yet', async () => {
    const workspace = await sandbox.admin.workspace('balances by day');
    await clock(workspace, 'set', { to: '2026-05-15T12:00:00Z' });
    await books(workspace, '+05:30');
    await graphql(workspace, POST, { ik: 'now' });
    await graphql(workspace, POST, { ik: 'later-this-hour', posted: '2026-05-15T12:30:00Z' });
    await graphql(workspace, POST, { ik: 'next-week', posted: '2026-05-20T08:00:00Z' });
    // Local days at +05:30: the 15th ends at 18:30Z, so all three entries fall on the 15th, 15th and 20th.
    const fields =
      'ownBalance at15: ownBalance(at: "2026-05-15") at20: ownBalance(at: "2026-05-20") ownBalancesDuring(startTime: "2026-05", duration: 31, granularity: daily) { nodes { at amount { amount } } }';
    const before = await bank(workspace, fields);
    expect([before.ownBalance, before.at15, before.at20]).toEqual(['10', '20', '30']);
    // Days 14 to 20 of May, local time.
    expect(before.ownBalancesDuring.nodes.slice(13, 20).map((node: any) => node.amount.amount)).toEqual([
      '0',
      '20',
      '20',
      '20',
      '20',
      '20',
      '30',
    ]);

    await clock(workspace, 'advance', { by: 'PT30M' });
    expect((await bank(workspace)).ownBalance).toBe('20'); // at 12:30:00.000 exactly, posted 12:30 counts
    await clock(workspace, 'advance', { by: 'P5D' });
    expect((await bank(workspace)).ownBalance).toBe('30');
  });

  it('restores a snapshot with the times its rows were written at, whatever the clock says now', async () => {
    const workspace = await sandbox.admin.workspace('restore under a clock');
    await clock(workspace, 'freeze', { at: '2026-04-01T08:00:00Z' });
    const ledger = await books(workspace);
    expect(ledger.createLedger.ledger.created).toBe('2026-04-01T08:00:00.000Z');
    await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/snapshots`, { name: 'april' });
    await clock(workspace, 'advance', { by: 'P30D' });
    expect(
      (await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/snapshots/april/restore`)).status,
    ).toBe(200);
    const read = await graphql(workspace, '{ ledger(ledger: { ik: "books" }) { created } }');
    expect(read.data.ledger.created).toBe('2026-04-01T08:00:00.000Z');
    const [{ newest }] = await sandbox.server.db.sql<{ newest: Date }[]>`
      select max(created) as newest from ledger_accounts where workspace_id = ${workspace.workspaceId}`;
    expect(newest).toEqual(new Date('2026-04-01T08:00:00Z'));
  });

  it("expires its clients' tokens by the clock", async () => {
    const workspace = await sandbox.admin.workspace('tokens');
    await clock(workspace, 'freeze', { at: '2026-02-01T00:00:00Z' });
    const token = await fetchToken(sandbox.server.baseUrl, workspace.clientId, workspace.clientSecret);
    const read = (bearer: string) => gql(sandbox.server.baseUrl, bearer, '{ ledgers { nodes { id } } }');
    expect((await read(token)).status).toBe(200);
    await clock(workspace, 'advance', { by: 'PT59M' });
    expect((await read(token)).status).toBe(200);
    await clock(workspace, 'advance', { by: 'PT2M' });
    const expired = await read(token);
    expect([expired.status, expired.body.errors?.[0].extensions.code]).toEqual([401, 'token_expired']);
    const fresh = await fetchToken(sandbox.server.baseUrl, workspace.clientId, workspace.clientSecret);
    expect((await read(fresh)).status).toBe(200);
  });
});

describe('moving the clock', () => {
  it('runs from an instant when set running, and goes back to real time when released', async () => {
    const workspace = await sandbox.admin.workspace('running');
    const set = await clock(workspace, 'set', { to: '2031-01-01T00:00:00Z', frozen: false });
    expect(set.body.data.mode).toBe('running');
    await sleep(60);
    const later = Date.parse((await clock(workspace, '')).body.data.now);
    expect(later).toBeGreaterThanOrEqual(Date.parse('2031-01-01T00:00:00.050Z'));
    expect(later).toBeLessThan(Date.parse('2031-01-01T00:01:00Z'));
    const advanced = (await clock(workspace, 'advance', { by: 'P1D' })).body.data;
    expect(advanced.mode).toBe('running');
    expect(Date.parse(advanced.now)).toBeGreaterThanOrEqual(Date.parse('2031-01-02T00:00:00Z'));
    // Nothing written yet: back to real time is allowed.
    const released = (await clock(workspace, 'release')).body.data;
    expect(released.mode).toBe('real');
    expect(Math.abs(Date.parse(released.now) - Date.now())).toBeLessThan(60_000);
  });

  it('refuses to go back before the data the workspace holds, until a reset', async () => {
    const workspace = await sandbox.admin.workspace('backwards');
    await clock(workspace, 'freeze', { at: '2030-06-01T00:00:00Z' });
    // The token fetched in 2026 has expired by the workspace's 2030: a new one, as a client would.
    workspace.token = await fetchToken(sandbox.server.baseUrl, workspace.clientId, workspace.clientSecret);
    await books(workspace);
    const back = await clock(workspace, 'set', { to: '2030-05-31T23:59:59.999Z' });
    expect([back.status, back.body.code, back.body.details]).toEqual([
      409,
      'clock_backwards',
      { newest_write: '2030-06-01T00:00:00.000Z' },
    ]);
    const release = await clock(workspace, 'release');
    expect([release.status, release.body.code]).toEqual([409, 'clock_backwards']);
    expect((await clock(workspace, '')).body.data).toEqual({ mode: 'frozen', now: '2030-06-01T00:00:00.000Z' });
    // The same instant is no step back; after a reset any instant is.
    expect((await clock(workspace, 'set', { to: '2030-06-01T00:00:00Z' })).status).toBe(200);
    await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/reset`);
    expect((await clock(workspace, 'set', { to: '2020-01-01T00:00:00Z' })).status).toBe(200);
    expect((await clock(workspace, 'release')).body.data.mode).toBe('real');
  });

  it('refuses durations and instants outside the contract, changing nothing', async () => {
    const workspace = await sandbox.admin.workspace('bad clock input');
    await clock(workspace, 'freeze', { at: '2026-01-01T00:00:00Z' });
    for (const [action, body] of [
      ['advance', { by: 'PT0S' }],
      ['advance', { by: 'P1Y' }],
      ['advance', { by: '-PT1H' }],
      ['advance', { by: 'PT' }],
      ['advance', {}],
      ['freeze', { at: '2026-01-01T00:00:00' }],
      ['freeze', { at: '1969-12-31T23:59:59Z' }],
      ['set', { to: '10000-01-01T00:00:00Z' }],
      ['set', { to: '2026-02-30T00:00:00Z' }],
      ['set', { to: '2026-01-02T00:00:00Z', frozen: 'yes' }],
      ['set', { at: '2026-01-02T00:00:00Z' }],
    ] as const) {
      const refused = await clock(workspace, action, body);
      expect([refused.status, refused.body.code], `${action} ${JSON.stringify(body)}`).toEqual([
        400,
        'invalid_request',
      ]);
    }
    expect((await clock(workspace, '')).body.data).toEqual({ mode: 'frozen', now: '2026-01-01T00:00:00.000Z' });
    const missing = await sandbox.admin.call('POST', '/workspaces/ws_00000000000000000000000000/clock/advance', {
      by: 'P1D',
    });
    expect([missing.status, missing.body.code]).toEqual([404, 'workspace_not_found']);
  });
});

describe('a server without the sandbox', () => {
  it('releases the clocks a sandbox left and drops the stamping triggers, so the database runs in real time', async () => {
    const workspace = await sandbox.admin.workspace('left behind');
    await clock(workspace, 'freeze', { at: '2026-01-01T00:00:00Z' });
    const triggers = async () =>
      (
        await sandbox.server.db.sql<
          { count: number }[]
        >`select count(*)::int as count from pg_trigger where tgname = 'sandbox_clock'`
      )[0].count;
    expect(await triggers()).toBeGreaterThan(10);
    expect(await retireSandboxClocks(sandbox.server.db.sql)).toBeGreaterThanOrEqual(1);
    expect(await triggers()).toBe(0);
    const [{ clocks }] = await sandbox.server.db.sql<
      { clocks: number }[]
    >`select count(*)::int as clocks from sandbox_clocks`;
    expect(clocks).toBe(0);
  });
});
