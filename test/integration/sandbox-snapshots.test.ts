import { describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { gql } from '../support/graphql.js';
import { rest } from '../support/rest.js';
import { sandboxServerForFile, type SandboxWorkspace } from '../support/sandbox.js';

// Snapshots of the sandbox: a restore gives back exactly what was saved (ids, iks, versions,
// balances, balance history, cursors), as often as asked, and never touches another workspace,
// even one that writes while it runs.

const sandbox = sandboxServerForFile();

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) { __typename ... on AddLedgerEntryResult { isIkReplay entry { id } } ... on BadRequestError { code } } }`;

const graphql = (workspace: SandboxWorkspace, query: string, variables: Record<string, unknown> = {}) =>
  gql(sandbox.server.baseUrl, workspace.token, query, variables).then((answer) => answer.body);
const billing = (workspace: SandboxWorkspace, method: string, path: string, body?: unknown) =>
  rest(sandbox.server.baseUrl, method, `/billing${path}`, { token: workspace.token, body });

const transfer = (n: number, amount = `${n}`) => ({
  ledger: { ik: 'books' },
  posted: new Date(Date.UTC(2026, 5, 1 + n, n % 24)).toISOString(),
  lines: [
    { account: { path: 'bank' }, amount },
    { account: { path: 'owed' }, amount },
  ],
});

async function seed(workspace: SandboxWorkspace) {
  const created = await graphql(
    workspace,
    `
      mutation {
        createLedger(ik: "books", ledger: { name: "Books", balanceUTCOffset: "+05:30" }) {
          __typename
        }
        createLedgerAccounts(
          ledger: { ik: "books" }
          ledgerAccounts: [
            { ik: "bank", name: "Bank", type: asset, consistencyConfig: { ownBalanceUpdates: eventual } }
            { ik: "owed", name: "Owed", type: liability, consistencyConfig: { ownBalanceUpdates: strong } }
          ]
        ) {
          __typename
        }
      }
    `,
  );
  expect(created.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
  for (let n = 1; n <= 5; n++) {
    const posted = await graphql(workspace, POST, { ik: `e${n}`, entry: transfer(n) });
    expect(posted.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
  }
  expect(
    (
      await billing(workspace, 'POST', '/products', {
        code: 'beans',
        description: 'Beans',
        paid_by_roles: [{ name: 'buyer' }],
      })
    ).status,
  ).toBe(201);
  const line = {
    description: 'beans',
    product_id: 'beans',
    type: 'payin',
    user: { external_id: 'ann' },
    currency_code: 'USD',
    price: { amount: '700' },
  };
  expect((await billing(workspace, 'POST', '/invoices', { invoice_id: 'inv-1', line_items: [line] })).status).toBe(201);
  const patched = await billing(workspace, 'PATCH', '/invoices/inv-1', {
    current_invoice_version: 1,
    tags: { set: [{ key: 'stage', value: 'sent' }] },
  });
  expect(patched.body.data.version).toBe(2);
}

/** What a client reads of the workspace: the answers a restore must give back unchanged. */
async function readings(workspace: SandboxWorkspace) {
  const ledger = await graphql(
    workspace,
    `
      {
        ledger(ledger: { ik: "books" }) {
          id
          ledgerEntries(first: 2) {
            nodes {
              id
              ik
              posted
            }
            pageInfo {
              endCursor
              hasNextPage
            }
          }
        }
        bank: ledgerAccount(ledgerAccount: { ledger: { ik: "books" }, path: "bank" }) {
          id
          ownBalance
          ownBalance2: ownBalance(at: "2026-06-04")
          ownBalancesDuring(startTime: "2026-06", duration: 8, granularity: daily) {
            nodes {
              at
              amount {
                amount
              }
            }
          }
        }
        owed: ledgerAccount(ledgerAccount: { ledger: { ik: "books" }, path: "owed" }) {
          id
          ownBalance
        }
      }
    `,
  );
  const cursor = ledger.data.ledger.ledgerEntries.pageInfo.endCursor;
  const secondPage = await graphql(
    workspace,
    `
      query ($after: String) {
        ledger(ledger: { ik: "books" }) {
          ledgerEntries(first: 2, after: $after) {
            nodes {
              id
              ik
            }
          }
        }
      }
    `,
    { after: cursor },
  );
  return {
    ledger: ledger.data,
    secondPage: secondPage.data,
    cursor,
    invoice: (await billing(workspace, 'GET', '/invoices/inv-1')).body,
    history: (await billing(workspace, 'GET', '/invoices/inv-1/history')).body,
    products: (await billing(workspace, 'GET', '/products')).body,
  };
}

describe('a restored snapshot', () => {
  it('gives back exactly what was saved, as often as it is restored', async () => {
    const workspace = await sandbox.admin.workspace();
    await seed(workspace);
    const before = await readings(workspace);
    expect(before.ledger.bank.ownBalance).toBe('15');
    expect(before.ledger.bank.ownBalancesDuring.nodes.filter((node: any) => node.amount.amount !== '0')).not.toEqual(
      [],
    );

    const saved = await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/snapshots`, {
      name: 'seeded',
    });
    expect(saved.status).toBe(201);
    expect(saved.body.data.rows).toBeGreaterThan(10);

    // Later writes of every kind, then back to the snapshot, twice.
    for (let round = 0; round < 2; round++) {
      expect((await graphql(workspace, POST, { ik: 'e6', entry: transfer(6) })).data.addLedgerEntry.isIkReplay).toBe(
        false,
      );
      const patched = await billing(workspace, 'PATCH', '/invoices/inv-1', {
        current_invoice_version: 2,
        tags: { set: [] },
      });
      expect(patched.body.data.version).toBe(3);
      await graphql(workspace, 'mutation { createLedger(ik: "later", ledger: { name: "Later" }) { __typename } }');
      expect((await readings(workspace)).ledger.bank.ownBalance).toBe('21');

      const restored = await sandbox.admin.call(
        'POST',
        `/workspaces/${workspace.workspaceId}/snapshots/seeded/restore`,
      );
      expect(restored.status).toBe(200);
      expect(restored.body.data).toEqual(saved.body.data);
      expect(await readings(workspace)).toEqual(before);
    }

    // Iks written before the snapshot replay their entries; the one written after it is free again.
    const replay = await graphql(workspace, POST, { ik: 'e1', entry: transfer(1) });
    expect(replay.data.addLedgerEntry.isIkReplay).toBe(true);
    expect(replay.data.addLedgerEntry.entry.id).toBe(
      (
        await sandbox.server.db
          .sql`select id from ledger_entries where workspace_id = ${workspace.workspaceId} and ik = 'e1'`
      )[0].id,
    );
    expect((await graphql(workspace, POST, { ik: 'e6', entry: transfer(6) })).data.addLedgerEntry.isIkReplay).toBe(
      false,
    );
    // The invoice is at the saved version: updating version 2 succeeds, version 3 is stale.
    const stale = await billing(workspace, 'PATCH', '/invoices/inv-1', {
      current_invoice_version: 3,
      tags: { set: [] },
    });
    expect([stale.status, stale.body.code]).toEqual([409, 'version_conflict']);
    expect(await checkLedgerInvariants(sandbox.server.db.sql)).toEqual([]);
  });
});

describe('managing snapshots', () => {
  it('refuses a taken name unless replaced, lists and deletes them, and names a missing one', async () => {
    const workspace = await sandbox.admin.workspace();
    const route = `/workspaces/${workspace.workspaceId}/snapshots`;
    const empty = (await sandbox.admin.call('POST', route, { name: 'empty' })).body.data;
    expect(empty.rows).toBe(0);
    await seed(workspace);
    const taken = await sandbox.admin.call('POST', route, { name: 'empty' });
    expect([taken.status, taken.body.code]).toEqual([409, 'snapshot_exists']);
    expect((await sandbox.admin.call('GET', route)).body.data).toEqual([empty]);

    const replaced = await sandbox.admin.call('POST', route, { name: 'empty', replace: true });
    expect(replaced.status).toBe(201);
    expect(replaced.body.data.rows).toBeGreaterThan(0);
    await sandbox.admin.call('POST', route, { name: 'second.copy_2-b' });
    expect((await sandbox.admin.call('GET', route)).body.data.map((s: any) => s.name)).toEqual([
      'empty',
      'second.copy_2-b',
    ]);

    const deleted = await sandbox.admin.call('DELETE', `${route}/empty`);
    expect(deleted.body.data).toEqual(replaced.body.data);
    for (const [method, path] of [
      ['POST', `${route}/empty/restore`],
      ['DELETE', `${route}/empty`],
      ['POST', `${route}/never/restore`],
    ]) {
      const missing = await sandbox.admin.call(method, path);
      expect([missing.status, missing.body.code]).toEqual([404, 'snapshot_not_found']);
    }
    const [{ shadow }] = await sandbox.server.db.sql<{ shadow: number }[]>`
      select count(*)::int as shadow from tally_snapshots.invoices where snapshot_id = (
        select id from sandbox_snapshots where workspace_id = ${workspace.workspaceId} and name = 'second.copy_2-b')`;
    expect(shadow).toBe(1);
    // The workspace's own data never moved.
    expect((await readings(workspace)).ledger.bank.ownBalance).toBe('15');
  });

  it('refuses names outside the contract and restores saved under another table layout, changing nothing', async () => {
    const workspace = await sandbox.admin.workspace();
    const route = `/workspaces/${workspace.workspaceId}/snapshots`;
    for (const name of ['', 'has space', '.hidden', 'x'.repeat(101), 'ümlaut', 'a/b']) {
      const refused = await sandbox.admin.call('POST', route, { name });
      expect([refused.status, refused.body.code], name).toEqual([400, 'invalid_request']);
    }
    await seed(workspace);
    await sandbox.admin.call('POST', route, { name: 'old' });
    await graphql(workspace, POST, { ik: 'e9', entry: transfer(9) });
    // As if a migration had changed a table since the snapshot was saved.
    await sandbox.server.db
      .sql`update sandbox_snapshots set layout = 'older' where workspace_id = ${workspace.workspaceId}`;
    const before = await readings(workspace);
    const refused = await sandbox.admin.call('POST', `${route}/old/restore`);
    expect([refused.status, refused.body.code]).toEqual([409, 'snapshot_outdated']);
    expect(await readings(workspace)).toEqual(before);
  });
});

describe('isolation', () => {
  it('leaves a workspace that posts throughout untouched while another is saved, reset and restored', async () => {
    const [subject, neighbour] = [await sandbox.admin.workspace('subject'), await sandbox.admin.workspace('neighbour')];
    await seed(subject);
    await seed(neighbour);
    const subjectBefore = await readings(subject);
    await sandbox.admin.call('POST', `/workspaces/${subject.workspaceId}/snapshots`, { name: 'seeded' });

    let posting = true;
    let posted = 0;
    const writer = (async () => {
      for (let n = 100; posting; n++) {
        const answer = await graphql(neighbour, POST, { ik: `n${n}`, entry: transfer(n % 20, '1') });
        expect(answer.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
        posted++;
      }
    })();
    for (let round = 0; round < 3; round++) {
      expect(
        (await sandbox.admin.call('POST', `/workspaces/${subject.workspaceId}/snapshots`, { name: `r${round}` }))
          .status,
      ).toBe(201);
      expect((await sandbox.admin.call('POST', `/workspaces/${subject.workspaceId}/reset`)).status).toBe(200);
      expect(
        (await sandbox.admin.call('POST', `/workspaces/${subject.workspaceId}/snapshots/seeded/restore`)).status,
      ).toBe(200);
    }
    posting = false;
    await writer;

    expect(posted).toBeGreaterThan(0);
    expect(await readings(subject)).toEqual(subjectBefore);
    const neighbourBank = (await readings(neighbour)).ledger.bank.ownBalance;
    expect(BigInt(neighbourBank)).toBe(15n + BigInt(posted));
    expect(await checkLedgerInvariants(sandbox.server.db.sql)).toEqual([]);
  });
});

describe('racing its own workspace', () => {
  it('answers writes that race a reset or restore of their workspace with a result or a typed refusal, and stays consistent', async () => {
    const workspace = await sandbox.admin.workspace('racing');
    await seed(workspace);
    await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/snapshots`, { name: 'seeded' });
    const outcomes = new Map<string, number>();
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n++) {
        const answer = await gql(sandbox.server.baseUrl, workspace.token, POST, {
          ik: `race-${n}`,
          entry: transfer(n % 20, '1'),
        });
        const outcome =
          answer.status >= 500
            ? `status ${answer.status}`
            : (answer.body.data?.addLedgerEntry?.code ?? answer.body.data?.addLedgerEntry?.__typename ?? 'no data');
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    })();
    for (let round = 0; round < 4; round++) {
      expect((await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/reset`)).status).toBe(200);
      expect(
        (await sandbox.admin.call('POST', `/workspaces/${workspace.workspaceId}/snapshots/seeded/restore`)).status,
      ).toBe(200);
    }
    writing = false;
    await writer;
    const allowed = new Set(['AddLedgerEntryResult', 'ledger_not_found', 'ledger_account_not_found']);
    // Nothing a racing posting wrote outlives the accounts it names (entries and lines have no foreign keys to them).
    const [{ orphans }] = await sandbox.server.db.sql<{ orphans: number }[]>`
      select (select count(*) from ledger_lines l where l.workspace_id = ${workspace.workspaceId}
                and not exists (select from ledger_accounts a where a.workspace_id = l.workspace_id and a.id = l.account_id))::int
           + (select count(*) from ledger_balance_queue q where q.workspace_id = ${workspace.workspaceId}
                and not exists (select from ledger_accounts a where a.workspace_id = q.workspace_id and a.id = q.account_id))::int
           + (select count(*) from ledger_entries e where e.workspace_id = ${workspace.workspaceId}
                and not exists (select from ledgers g where g.workspace_id = e.workspace_id and g.id = e.ledger_id))::int as orphans`;
    expect(orphans).toBe(0);
    expect([...outcomes.keys()].filter((outcome) => !allowed.has(outcome))).toEqual([]);
    expect(await checkLedgerInvariants(sandbox.server.db.sql)).toEqual([]);
  });
});
