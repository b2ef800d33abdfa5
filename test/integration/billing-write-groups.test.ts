import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/core/ids.js';
import { checkBillingReferences } from '../../src/db/billingChecks.js';
import { transaction } from '../../src/db/rollback.js';
import {
  createInvoiceRow,
  createInvoiceRows,
  type CreateInvoiceOutcome,
  type InvoiceCreateCall,
  type InvoiceItemInput,
} from '../../src/db/invoices.js';
import {
  syncTransactionRow,
  syncTransactionRows,
  type AccountRef,
  type AllocationToSync,
  type SyncCall,
  type SyncOutcome,
} from '../../src/db/transactions.js';
import { rest } from '../support/rest.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Group commit of billing writes: concurrent transaction syncs and invoice creates are written
// together, one statement and one commit per group, yet each request gets the answer it would
// get alone. The same requests are sent concurrently to one workspace and one by one to another;
// the answers must agree, and a refused write must leave nothing behind in either.

let server: TestServer;
let grouped: TestWorkspace;
let alone: TestWorkspace;

// Well-formed ids that name nothing.
const UNKNOWN_USER = `user_${'0'.repeat(26)}`;
const UNKNOWN_BANK = `ext_account_${'0'.repeat(26)}`;
const PRODUCT = { code: 'beans', description: 'Beans', paid_by_roles: [{ name: 'buyer' }] };

beforeAll(async () => {
  // One group in flight: whatever arrives meanwhile forms the next group, so groups form surely.
  server = await startTestServer({ billingGroups: { maxItems: 32, maxInFlight: 1 } });
  grouped = await server.workspace('Grouped');
  alone = await server.workspace('Alone');
  for (const workspace of [grouped, alone]) {
    expect((await call(workspace, 'POST', '/products', PRODUCT)).status).toBe(201);
    expect((await call(workspace, 'POST', '/invoices', invoice('open', 'u0', '1000'))).status).toBe(201);
  }
});
afterAll(() => server?.close());

const call = (workspace: TestWorkspace, method: string, path: string, body?: unknown) =>
  rest(server.baseUrl, method, `/billing${path}`, { token: workspace.token, body });

function invoice(id: string, user: string | { id: string }, price: string, product = 'beans') {
  return {
    invoice_id: id,
    line_items: [
      {
        description: 'Beans',
        product_id: product,
        type: 'payin',
        user: typeof user === 'string' ? { external_id: user } : user,
        currency_code: 'USD',
        price: { unit_price: price, quantity: 1 },
      },
    ],
  };
}

function sync(
  externalId: string,
  options: { bank?: unknown; invoiceId?: string; user?: unknown; amount?: string } = {},
) {
  return {
    account: options.bank ?? { external_id: `bank-${externalId}` },
    amount: '100',
    currency: 'USD',
    external_id: externalId,
    posted: '2026-11-05T10:00:00+05:30',
    allocations: [
      {
        amount: options.amount ?? '40',
        invoice_id: options.invoiceId ?? 'open',
        type: 'invoice_payin',
        user: options.user ?? { external_id: `payer-${externalId}` },
      },
    ],
  };
}

type Write = { path: '/invoices' | '/transactions'; body: unknown };

/** Writes of every outcome, each key used once: the answer alone does not depend on order. */
function mixedWrites(): Write[] {
  const writes: Write[] = [];
  for (let i = 0; i < 8; i++) {
    writes.push({ path: '/transactions', body: sync(`ok-${i}`) });
    writes.push({ path: '/invoices', body: invoice(`inv-${i}`, `buyer-${i}`, String(100 + i)) });
  }
  writes.push(
    { path: '/transactions', body: sync('no-invoice', { invoiceId: 'missing' }) },
    { path: '/transactions', body: sync('no-user', { user: { id: UNKNOWN_USER } }) },
    { path: '/transactions', body: sync('no-bank', { bank: { id: UNKNOWN_BANK } }) },
    { path: '/transactions', body: sync('too-much', { amount: '101' }) },
    { path: '/invoices', body: invoice('inv-no-product', 'buyer-x', '5', 'no-such-product') },
    { path: '/invoices', body: invoice('inv-no-user', { id: UNKNOWN_USER }, '5') },
  );
  return writes;
}

/** What a client can compare across workspaces: status, code, and the data without ids and times. */
function comparable(answer: { status: number; body: any }) {
  if (answer.status >= 400) return { status: answer.status, code: answer.body.code, message: answer.body.message };
  const text = JSON.stringify(answer.body.data, (key, value) =>
    ['id', 'created', 'modified', 'workspace_id', 'workspaceId'].includes(key) || /_id$/.test(key) ? undefined : value,
  );
  return { status: answer.status, data: JSON.parse(text) };
}

const counter = async (name: string, operation: string) => {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(new RegExp(`^${name}\\{operation="${operation}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
};

describe('group commit of billing writes', () => {
  it('answers each concurrent write as it answers the same write alone, in fewer commits', async () => {
    const writes = mixedWrites();
    const groupsBefore = await counter('tally_billing_write_groups_total', 'syncTransaction');
    const writesBefore = await counter('tally_billing_grouped_writes_total', 'syncTransaction');
    const together = await Promise.all(writes.map((write) => call(grouped, 'POST', write.path, write.body)));
    const groups = (await counter('tally_billing_write_groups_total', 'syncTransaction')) - groupsBefore;
    const syncs = writes.filter((write) => write.path === '/transactions').length;
    expect((await counter('tally_billing_grouped_writes_total', 'syncTransaction')) - writesBefore).toBe(syncs);
    expect(groups).toBeLessThan(syncs);

    const oneByOne = [];
    for (const write of writes) oneByOne.push(await call(alone, 'POST', write.path, write.body));
    expect(together.map(comparable)).toEqual(oneByOne.map(comparable));
    expect(together.filter((answer) => answer.status === 201)).toHaveLength(16);
  });

  it('leaves no bank account, user or row of a refused write, in either workspace', async () => {
    for (const workspace of [grouped, alone]) {
      const [counts] = await server.db.sql<
        { accounts: number; users: number; invoices: number; transactions: number }[]
      >`
        select (select count(*)::int from external_accounts where workspace_id = ${workspace.workspaceId}
                  and external_id in ('bank-no-invoice', 'bank-no-user', 'bank-too-much')) as accounts,
               (select count(*)::int from billing_users where workspace_id = ${workspace.workspaceId}
                  and external_id in ('payer-no-invoice', 'payer-no-bank', 'payer-too-much', 'buyer-x')) as users,
               (select count(*)::int from invoices where workspace_id = ${workspace.workspaceId}
                  and id in ('inv-no-product', 'inv-no-user')) as invoices,
               (select count(*)::int from billing_transactions where workspace_id = ${workspace.workspaceId}
                  and external_id in ('no-invoice', 'no-user', 'no-bank', 'too-much')) as transactions`;
      expect(counts).toEqual({ accounts: 0, users: 0, invoices: 0, transactions: 0 });
    }
    expect(await checkBillingReferences(server.db.sql)).toEqual([]);
  });

  it('writes one transaction for concurrent syncs of one external id: the same body replays, another is refused', async () => {
    const same = sync('twin');
    const other = sync('twin', { amount: '41' });
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => call(grouped, 'POST', '/transactions', same)),
      ...Array.from({ length: 5 }, () => call(grouped, 'POST', '/transactions', other)),
    ]);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created).toHaveLength(1);
    const winner = created[0].body.data.allocations[0].amount as string;
    const [withWinningBody, withOtherBody] =
      winner === '40' ? [answers.slice(0, 5), answers.slice(5)] : [answers.slice(5), answers.slice(0, 5)];
    expect(withWinningBody.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(withWinningBody.map((answer) => answer.body.data.id)).size).toBe(1);
    expect(withOtherBody.map((answer) => [answer.status, answer.body.code])).toEqual(
      Array(5).fill([409, 'idempotency_key_reused']),
    );
  });

  it('writes one invoice for concurrent creates of one invoice id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => call(grouped, 'POST', '/invoices', invoice('inv-twin', 'buyer-twin', '7'))),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const [count] = await server.db.sql<{ n: number }[]>`
      select count(*)::int as n from invoice_line_items where workspace_id = ${grouped.workspaceId} and invoice_id = 'inv-twin'`;
    expect(count.n).toBe(1);
  });

  it('create_invoices answers every call of one group as create_invoice answers it alone', async () => {
    // One statement for the whole group, in each case create_invoice decides alone: a taken id
    // wins over a bad product, an unknown product over an unknown user, a user first named in
    // the group is created once (with the earliest call's planned id), a refused call leaves nothing.
    const world = async (workspace: TestWorkspace) => {
      const [ids] = await server.db.sql<{ product: string; user: string }[]>`
        select (select id from products where workspace_id = ${workspace.workspaceId} and code = 'beans') as product,
               (select id from billing_users where workspace_id = ${workspace.workspaceId} and external_id = 'u0') as user`;
      return ids;
    };
    const item = (
      position: number,
      product: string,
      user: { id: string } | { externalId: string },
      planned = true,
    ): InvoiceItemInput => ({
      id: newId('li'),
      position,
      type: 'payin',
      product_ref: product,
      user_id: 'id' in user ? user.id : null,
      user_external_id: 'externalId' in user ? user.externalId : null,
      new_user_id: planned ? newId('user') : null,
      description: `item ${position}`,
      currency: 'USD',
      unit_price: '123456789012345678901234567',
      quantity: 2,
      amount: '246913578024691357802469134',
      tags: [{ key: 'at', value: String(position) }],
    });
    const callsFor = (workspace: TestWorkspace, known: { product: string; user: string }): InvoiceCreateCall[] => {
      const call = (invoiceId: string, items: InvoiceItemInput[]) => ({
        workspaceId: workspace.workspaceId,
        invoiceId,
        tags: [],
        requestHash: `hash-${invoiceId}`,
        items,
      });
      return [
        call('set-1', [item(1, 'beans', { externalId: 'shared' }), item(2, known.product, { id: known.user })]),
        call('set-2', [item(1, known.product, { externalId: 'shared' })]),
        call('open', [item(1, 'no-such-product', { externalId: 'never-taken' })]),
        call('set-bad-product', [
          item(1, 'beans', { id: UNKNOWN_USER }),
          item(2, 'gone', { externalId: 'never-product' }),
          item(3, 'gone-too', { externalId: 'never-product' }),
        ]),
        call('set-bad-user', [
          item(1, 'beans', { id: UNKNOWN_USER }),
          item(2, 'beans', { externalId: 'never-user' }),
          item(3, 'beans', { id: UNKNOWN_USER }),
        ]),
        // As the server plans them: a user id on the first item naming each external id only.
        call('set-3', [
          item(1, 'beans', { externalId: 'shared' }, false),
          item(2, 'beans', { externalId: 'solo' }),
          item(3, known.product, { externalId: 'solo' }, false),
        ]),
      ];
    };
    const groupCalls = callsFor(grouped, await world(grouped));
    const aloneCalls = callsFor(alone, await world(alone));
    const together = await createInvoiceRows(server.db.sql, groupCalls);
    const oneByOne: CreateInvoiceOutcome[] = [];
    for (const call of aloneCalls) oneByOne.push(await createInvoiceRow(server.db.sql, call));

    // Comparable across workspaces: outcomes, refused indexes, and what each reference resolved to, ids aside.
    const shape = (answer: (typeof together)[number]) => {
      if (typeof answer === 'symbol' || answer.outcome !== 'created') return answer;
      return {
        outcome: answer.outcome,
        users: answer.userExternalIds,
        products: answer.productCodes,
        // Items naming one user answer one id.
        sameUserAsFirst: answer.userIds.map((id) => id === answer.userIds[0]),
      };
    };
    expect(together.map(shape)).toEqual(oneByOne.map(shape));
    expect(together.map((answer) => (typeof answer === 'symbol' ? 'alone' : answer.outcome))).toEqual([
      'created',
      'created',
      'taken',
      'unknown_product',
      'unknown_user',
      'created',
    ]);
    expect(together[3]).toEqual({ outcome: 'unknown_product', indexes: [1, 2] });
    expect(together[4]).toEqual({ outcome: 'unknown_user', indexes: [0, 2] });

    // The user the group first named is one row, with the planned id of its first mention.
    const [shared] = await server.db.sql<{ id: string }[]>`
      select id from billing_users where workspace_id = ${grouped.workspaceId} and external_id = 'shared'`;
    expect(shared.id).toBe(groupCalls[0].items[0].new_user_id);
    const created = together[1] as Extract<CreateInvoiceOutcome, { outcome: 'created' }>;
    expect([created.userIds[0], created.userExternalIds[0]]).toEqual([shared.id, 'shared']);
    const third = together[5] as Extract<CreateInvoiceOutcome, { outcome: 'created' }>;
    expect(third.userIds[0]).toBe(shared.id);
    expect(third.userIds[2]).toBe(third.userIds[1]);
    expect(third.productCodes).toEqual(['beans', 'beans', 'beans']);

    for (const workspace of [grouped, alone]) {
      const rows = await server.db.sql<
        { invoiceId: string; position: number; userExternalId: string; amount: string; tags: unknown }[]
      >`
        select li.invoice_id as "invoiceId", li.position, u.external_id as "userExternalId", li.amount::text as amount, li.tags
        from invoice_line_items li join billing_users u on u.workspace_id = li.workspace_id and u.id = li.user_id
        where li.workspace_id = ${workspace.workspaceId} and li.invoice_id like 'set-%' order by 1, 2`;
      const written = (invoiceId: string, position: number, userExternalId: string) => ({
        invoiceId,
        position,
        userExternalId,
        amount: '246913578024691357802469134',
        tags: [{ key: 'at', value: String(position) }],
      });
      expect(rows).toEqual([
        written('set-1', 1, 'shared'),
        written('set-1', 2, 'u0'),
        written('set-2', 1, 'shared'),
        written('set-3', 1, 'shared'),
        written('set-3', 2, 'solo'),
        written('set-3', 3, 'solo'),
      ]);
      const [left] = await server.db.sql<{ invoices: number; users: number }[]>`
        select (select count(*)::int from invoices where workspace_id = ${workspace.workspaceId}
                  and id in ('set-bad-product', 'set-bad-user')) as invoices,
               (select count(*)::int from billing_users where workspace_id = ${workspace.workspaceId}
                  and external_id in ('never-taken', 'never-product', 'never-user')) as users`;
      expect(left).toEqual({ invoices: 0, users: 0 });
    }
    expect(await checkBillingReferences(server.db.sql)).toEqual([]);
  });

  it('sync_transactions answers every call of one group as sync_transaction answers it alone', async () => {
    // Each check sync_transaction makes, in its order, decides one call of a single group; the
    // group's new bank accounts and users are created once, and a refused call writes nothing.
    const world = async (workspace: TestWorkspace) => {
      expect((await call(workspace, 'POST', '/transactions', sync('seed'))).status).toBe(201);
      expect((await call(workspace, 'POST', '/invoices', invoice('flowing', 'u-flow', '300'))).status).toBe(201);
      const flow = { external_id: 'flow-g', invoice: { id: 'flowing' }, type: 'single_invoice_settlement' };
      expect((await call(workspace, 'POST', '/payment-flows', flow)).status).toBe(201);
      const [ids] = await server.db.sql<{ bank: string; user: string }[]>`
        select (select id from external_accounts where workspace_id = ${workspace.workspaceId} and external_id = 'bank-seed') as bank,
               (select id from billing_users where workspace_id = ${workspace.workspaceId} and external_id = 'payer-seed') as user`;
      return ids;
    };
    const allocation = (
      position: number,
      invoiceId: string,
      user: { id: string } | { externalId: string },
      amount = '10',
    ): AllocationToSync => ({
      id: newId('alloc'),
      position,
      invoice_id: invoiceId,
      user_id: 'id' in user ? user.id : null,
      user_external_id: 'externalId' in user ? user.externalId : null,
      new_user_id: newId('user'),
      type: 'invoice_payin',
      amount,
    });
    const newBank = (externalId: string): AccountRef => ({ external_id: externalId, new_id: newId('ext_account') });
    const callsFor = (workspace: TestWorkspace, known: { bank: string; user: string }): SyncCall[] => {
      const syncCall = (externalId: string, account: AccountRef, allocations: AllocationToSync[], amount = '100') => ({
        workspaceId: workspace.workspaceId,
        transaction: {
          id: newId('txn'),
          externalId,
          amount,
          currency: 'USD' as const,
          posted: '2026-11-05T10:00:00+05:30',
          tags: [],
          allocated: allocations.reduce((sum, a) => sum + BigInt(a.amount), 0n).toString(),
          requestHash: `hash-${externalId}`,
        },
        account,
        allocations,
      });
      return [
        syncCall('g-new', newBank('bank-shared'), [
          allocation(1, 'open', { externalId: 'payer-shared' }),
          allocation(2, 'open', { id: known.user }),
        ]),
        syncCall('g-by-id', { id: known.bank, external_id: 'bank-seed' }, [
          allocation(1, 'open', { externalId: 'payer-shared' }),
        ]),
        syncCall('g-same-bank', newBank('bank-shared'), []),
        syncCall('seed', newBank('bank-never-taken'), [allocation(1, 'missing', { externalId: 'never-taken' })]),
        syncCall('g-follow', { id: 'ext_account_00000000000000000000000000' }, [
          allocation(1, 'flowing', { externalId: 'never-follow' }),
        ]),
        syncCall('g-no-bank', { id: 'ext_account_00000000000000000000000000' }, [
          allocation(1, 'missing', { id: UNKNOWN_USER }),
        ]),
        syncCall('g-other-bank', { id: known.bank, external_id: 'bank-other' }, []),
        syncCall('g-no-invoice', newBank('bank-never-invoice'), [
          allocation(1, 'open', { id: UNKNOWN_USER }),
          allocation(2, 'missing', { externalId: 'never-invoice' }),
        ]),
        syncCall('g-no-user', newBank('bank-never-user'), [
          allocation(1, 'open', { externalId: 'never-user' }),
          allocation(2, 'open', { id: UNKNOWN_USER }),
        ]),
        syncCall('g-too-much', newBank('bank-never-much'), [
          allocation(1, 'open', { externalId: 'never-much' }, '101'),
        ]),
      ];
    };
    const groupCalls = callsFor(grouped, await world(grouped));
    const aloneCalls = callsFor(alone, await world(alone));
    const together = await syncTransactionRows(server.db.sql, groupCalls);
    const oneByOne: SyncOutcome[] = [];
    for (const syncCall of aloneCalls) oneByOne.push(await syncTransactionRow(server.db.sql, syncCall));

    const shape = (answer: (typeof together)[number]) => {
      if (typeof answer === 'symbol' || answer.outcome !== 'created') return answer;
      const users = Object.entries(answer.users).map(
        ([key, [, name]]) => `${key.startsWith('id:') ? 'id' : key}=${name}`,
      );
      return { outcome: answer.outcome, bank: answer.account.externalId, users: users.sort(), posted: answer.posted };
    };
    expect(together.map(shape)).toEqual(oneByOne.map(shape));
    expect(together.map((answer) => (typeof answer === 'symbol' ? 'alone' : answer.outcome))).toEqual([
      'created',
      'created',
      'created',
      'taken',
      'follow',
      'unknown_account',
      'unknown_account',
      'unknown_invoice',
      'unknown_user',
      'over_allocated',
    ]);
    expect(together[6]).toEqual({ outcome: 'unknown_account', externalIdFound: 'bank-seed' });
    expect(together[7]).toEqual({ outcome: 'unknown_invoice', indexes: [1] });
    expect(together[8]).toEqual({ outcome: 'unknown_user', indexes: [1] });

    const [shared] = await server.db.sql<{ bank: string; user: string }[]>`
      select (select id from external_accounts where workspace_id = ${grouped.workspaceId} and external_id = 'bank-shared') as bank,
             (select id from billing_users where workspace_id = ${grouped.workspaceId} and external_id = 'payer-shared') as user`;
    expect(shared).toEqual({
      bank: (groupCalls[0].account as { new_id: string }).new_id,
      user: groupCalls[0].allocations[0].new_user_id,
    });
    for (const workspace of [grouped, alone]) {
      const rows = await server.db.sql<{ externalId: string; bank: string; allocations: number }[]>`
        select t.external_id as "externalId", x.external_id as bank,
               (select count(*)::int from allocations a where a.workspace_id = t.workspace_id and a.transaction_id = t.id) as allocations
        from billing_transactions t join external_accounts x on x.workspace_id = t.workspace_id and x.id = t.account_id
        where t.workspace_id = ${workspace.workspaceId} and t.external_id like 'g-%' order by 1`;
      expect(rows).toEqual([
        { externalId: 'g-by-id', bank: 'bank-seed', allocations: 1 },
        { externalId: 'g-new', bank: 'bank-shared', allocations: 2 },
        { externalId: 'g-same-bank', bank: 'bank-shared', allocations: 0 },
      ]);
      const [left] = await server.db.sql<{ banks: number; users: number }[]>`
        select (select count(*)::int from external_accounts where workspace_id = ${workspace.workspaceId}
                  and external_id like 'bank-never-%') as banks,
               (select count(*)::int from billing_users where workspace_id = ${workspace.workspaceId}
                  and external_id like 'never-%') as users`;
      expect(left).toEqual({ banks: 0, users: 0 });
    }
    expect(await checkBillingReferences(server.db.sql)).toEqual([]);
  });

  it('reads what a write names by key: no statement of the invoice creates or syncs, grouped or alone, scans a table whole', async () => {
    // A generic plan may hash a whole table for an exists() over the calls' keys (syncs slowed
    // as invoices grew, 2,235 -> 1,371/s). Tables big enough for index probes to be the plan
    // of choice; the transaction's own counters tell whether any statement scanned one instead.
    const [workspace] = await server.db.sql<{ id: string }[]>`select ${grouped.workspaceId}::text as id`;
    await server.db.sql`
      insert into invoices (workspace_id, id, request_hash)
      select ${workspace.id}, 'bulk-' || g, 'bulk' from generate_series(1, 5000) g`;
    await server.db.sql`
      insert into billing_users (workspace_id, id, external_id)
      select ${workspace.id}, 'user_bulk' || g, 'bulk-user-' || g from generate_series(1, 5000) g`;
    await server.db.sql`
      insert into external_accounts (workspace_id, id, external_id)
      select ${workspace.id}, 'ext_account_bulk' || g, 'bulk-bank-' || g from generate_series(1, 5000) g`;
    await server.db.sql`
      insert into billing_transactions (workspace_id, id, external_id, account_id, amount, currency, posted, request_hash)
      select ${workspace.id}, 'txn_bulk' || g, 'bulk-txn-' || g, 'ext_account_bulk' || g, 1, 'USD', now(), 'bulk'
      from generate_series(1, 5000) g`;
    // Flows on all but the first hundred invoices: the syncs below pay bulk-3, which has none.
    await server.db.sql`
      insert into payment_flows (workspace_id, id, external_id, invoice_id, type, request_hash)
      select ${workspace.id}, 'pf_bulk' || g, 'bulk-flow-' || g, 'bulk-' || g, 'single_invoice_settlement', 'bulk'
      from generate_series(101, 5000) g`;
    await server.db.sql`
      insert into products (workspace_id, id, code, description)
      select ${workspace.id}, 'prod_bulk' || g, 'bulk-product-' || g, 'Bulk' from generate_series(1, 5000) g`;
    await server.db.sql`
      insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description,
                                      currency, unit_price, quantity, amount)
      select ${workspace.id}, 'bulk-' || (g / 2 + 1), 'li_bulk' || g, g % 2 + 1, 'payin', 'prod_bulk1', 'user_bulk1', 'Bulk',
             'USD', 1, 1, 1
      from generate_series(1, 5000) g`;
    await server.db
      .sql`analyze invoices, billing_users, external_accounts, products, payment_flows, billing_transactions,
                          invoice_line_items`;
    const lineItem = (position: number, user: string): InvoiceItemInput => ({
      id: newId('li'),
      position,
      type: 'payin',
      product_ref: 'beans',
      user_id: null,
      user_external_id: user,
      new_user_id: newId('user'),
      description: 'Beans',
      currency: 'USD',
      unit_price: '5',
      quantity: 1,
      amount: '5',
      tags: [],
    });
    const syncOf = (externalId: string, invoiceId: string): SyncCall => ({
      workspaceId: workspace.id,
      transaction: {
        id: newId('txn'),
        externalId,
        amount: '5',
        currency: 'USD',
        posted: '2026-11-05T10:00:00Z',
        tags: [],
        allocated: '5',
        requestHash: `hash-${externalId}`,
      },
      account: { external_id: `bank-${externalId}`, new_id: newId('ext_account') },
      allocations: [
        {
          id: newId('alloc'),
          position: 1,
          invoice_id: invoiceId,
          user_id: null,
          user_external_id: 'bulk-user-7',
          new_user_id: newId('user'),
          type: 'invoice_payin',
          amount: '5',
        },
      ],
    });
    // pg_stat_xact_* also counts what this backend did before and has not reported yet: a difference.
    const seqScans = async (trx: postgres.TransactionSql) =>
      new Map(
        (
          await trx<{ relname: string; seqScan: number }[]>`
            select relname, seq_scan::int as "seqScan" from pg_stat_xact_user_tables
            where relname in ('invoices', 'billing_users', 'external_accounts', 'products', 'payment_flows',
                              'billing_transactions', 'invoice_line_items', 'allocations')`
        ).map((row) => [row.relname, row.seqScan]),
      );
    const outcome = await transaction<never, string[]>(server.db.sql, async (trx, rollback) => {
      const before = await seqScans(trx);
      const created = await createInvoiceRows(trx, [
        {
          workspaceId: workspace.id,
          invoiceId: 'keyed-1',
          tags: [],
          requestHash: 'k1',
          items: [lineItem(1, 'bulk-user-1')],
        },
        {
          workspaceId: workspace.id,
          invoiceId: 'bulk-9',
          tags: [],
          requestHash: 'k2',
          items: [lineItem(1, 'keyed-user')],
        },
      ]);
      expect(created.map((answer) => (typeof answer === 'symbol' ? 'alone' : answer.outcome))).toEqual([
        'created',
        'taken',
      ]);
      const synced = await syncTransactionRows(trx, [
        syncOf('keyed-a', 'bulk-3'),
        syncOf('keyed-b', 'no-such-invoice'),
      ]);
      expect(synced.map((answer) => (typeof answer === 'symbol' ? 'alone' : answer.outcome))).toEqual([
        'created',
        'unknown_invoice',
      ]);
      // And the one-call functions, as the server writes a call alone.
      expect(
        await createInvoiceRow(trx, {
          workspaceId: workspace.id,
          invoiceId: 'keyed-2',
          tags: [],
          requestHash: 'k3',
          items: [lineItem(1, 'bulk-user-2')],
        }),
      ).toMatchObject({ outcome: 'created' });
      expect(await syncTransactionRow(trx, syncOf('keyed-c', 'bulk-4'))).toMatchObject({ outcome: 'created' });
      // A PATCH that changes one item and deletes another finds both by id within their invoice.
      const updates = trx.json([
        { id: 'li_bulk12', description: 'Changed', unit_price: '2', quantity: 1, amount: '2', tags: [] },
      ]);
      const [change] = await trx<{ version: number }[]>`
        select version from change_invoice(${workspace.id}, 'bulk-7', 1, '[]', null, '{}', null, ${updates},
                                           array['li_bulk13'], '[]')`;
      expect(change.version).toBe(2);
      expect(
        await trx`select id, description from invoice_line_items where workspace_id = ${workspace.id} and invoice_id = 'bulk-7'`,
      ).toEqual([{ id: 'li_bulk12', description: 'Changed' }]);
      const after = await seqScans(trx);
      return rollback([...after].filter(([table, scans]) => scans > (before.get(table) ?? 0)).map(([table]) => table));
    });
    expect(outcome).toEqual({ rolledBack: [] });
  });
});
