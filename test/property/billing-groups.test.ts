import fc from 'fast-check';
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { WRITE_ALONE } from '../../src/db/groupCommit.js';
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
  type SyncCall,
  type SyncOutcome,
} from '../../src/db/transactions.js';
import { useTestDatabase } from '../support/database.js';

// The oracle of the set-based billing groups: a random sequence of invoice creates and
// transaction syncs, reaching every outcome (taken ids, unknown products, users, invoices and
// bank accounts, a bank account whose external id differs, payment flows, over-allocation, users
// and bank accounts first named by several calls), is written to one workspace in groups
// (create_invoices, sync_transactions; no key twice in a group, as the server's group commit
// forms them) and to a twin workspace call by call (create_invoice, sync_transaction), in the same
// order and with the same planned ids. Every answer and every row written must match.

const RUNS = Number(process.env.PROPERTY_RUNS ?? 40);

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
});

type UserRef = { id: string } | { externalId: string };
type CreateSpec = { kind: 'create'; invoiceId: string; items: { product: string; user: UserRef }[] };
type SyncSpec = {
  kind: 'sync';
  externalId: string;
  account: { id: string; externalId?: string } | { externalId: string };
  amount: number;
  allocations: { invoiceId: string; user: UserRef; amount: number }[];
};
type Spec = CreateSpec | SyncSpec;

const user: fc.Arbitrary<UserRef> = fc.constantFrom(
  { id: 'user_known' },
  { id: 'user_unknown' },
  { externalId: 'known' },
  { externalId: 'new-1' },
  { externalId: 'new-2' },
);
const create: fc.Arbitrary<CreateSpec> = fc.record({
  kind: fc.constant('create' as const),
  invoiceId: fc.constantFrom('i1', 'i2', 'i3', 'seeded'),
  items: fc.array(fc.record({ product: fc.constantFrom('beans', 'prod_tea', 'no-such-product'), user }), {
    minLength: 1,
    maxLength: 3,
  }),
});
const sync: fc.Arbitrary<SyncSpec> = fc.record({
  kind: fc.constant('sync' as const),
  externalId: fc.constantFrom('t1', 't2', 't3', 'seeded-tx'),
  account: fc.constantFrom<SyncSpec['account']>(
    { externalId: 'bank-new-1' },
    { externalId: 'bank-new-2' },
    { externalId: 'bank-known' },
    { id: 'ext_account_known' },
    { id: 'ext_account_known', externalId: 'bank-known' },
    { id: 'ext_account_known', externalId: 'bank-other' },
    { id: 'ext_account_unknown' },
  ),
  amount: fc.constantFrom(-50, 50),
  allocations: fc.array(
    fc.record({
      invoiceId: fc.constantFrom('i1', 'i2', 'seeded', 'flowing', 'no-such-invoice'),
      user,
      amount: fc.integer({ min: 1, max: 40 }),
    }),
    { maxLength: 2 },
  ),
});

/** The ids the server would plan for each call, made once so that both workspaces get the same. */
type Planned = { spec: Spec; ids: string[] };
let counter = 0;
const plannedId = (prefix: string) => `${prefix}_${String(++counter).padStart(8, '0')}`;
const plan = (spec: Spec): Planned => ({ spec, ids: Array.from({ length: 8 }, () => plannedId('x')) });

const userFields = (ref: UserRef) => ({
  user_id: 'id' in ref ? ref.id : null,
  user_external_id: 'externalId' in ref ? ref.externalId : null,
});

function createCall(workspaceId: string, { spec, ids }: Planned): InvoiceCreateCall {
  const { invoiceId, items } = spec as CreateSpec;
  return {
    workspaceId,
    invoiceId,
    tags: [{ key: 'n', value: ids[0] }],
    requestHash: ids[0],
    items: items.map((item, index): InvoiceItemInput => ({
      id: `li_${ids[1 + index]}`,
      position: index + 1,
      type: index % 2 ? 'payout' : 'payin',
      product_ref: item.product,
      ...userFields(item.user),
      new_user_id: `user_${ids[4 + index]}`,
      description: `item ${index}`,
      currency: 'USD',
      unit_price: '12345678901234567890',
      quantity: index + 1,
      amount: (12345678901234567890n * BigInt(index + 1)).toString(),
      tags: [],
    })),
  };
}

function syncCall(workspaceId: string, { spec, ids }: Planned): SyncCall {
  const { externalId, account, amount, allocations } = spec as SyncSpec;
  const ref: AccountRef =
    'id' in account
      ? { id: account.id, ...(account.externalId ? { external_id: account.externalId } : {}) }
      : { external_id: account.externalId, new_id: `ext_account_${ids[1]}` };
  return {
    workspaceId,
    transaction: {
      id: `txn_${ids[0]}`,
      externalId,
      amount: String(amount),
      currency: 'USD',
      posted: '2026-11-05T10:00:00+05:30',
      tags: [],
      allocated: String(allocations.reduce((sum, a) => sum + a.amount, 0)),
      requestHash: ids[0],
    },
    account: ref,
    allocations: allocations.map((allocation, index) => ({
      id: `alloc_${ids[2 + index]}`,
      position: index + 1,
      invoice_id: allocation.invoiceId,
      ...userFields(allocation.user),
      new_user_id: `user_${ids[5 + index]}`,
      type: 'invoice_payin',
      amount: String(allocation.amount),
    })),
  };
}

/** Consecutive calls of one kind, no key twice, at most `size` a group: as group commit forms them. */
function groupsOf(calls: Planned[], sizes: number[]): Planned[][] {
  const groups: Planned[][] = [];
  const keyOf = ({ spec }: Planned) => `${spec.kind}:${spec.kind === 'create' ? spec.invoiceId : spec.externalId}`;
  for (const call of calls) {
    const last = groups.at(-1);
    const fits =
      last &&
      last[0].spec.kind === call.spec.kind &&
      last.length < sizes[groups.length % sizes.length] &&
      !last.some((other) => keyOf(other) === keyOf(call));
    if (fits) last.push(call);
    else groups.push([call]);
  }
  return groups;
}

async function seedWorkspace(workspaceId: string): Promise<void> {
  await sql`insert into workspaces (id, name) values (${workspaceId}, ${workspaceId})`;
  await sql`insert into products (workspace_id, id, code, description)
            values (${workspaceId}, 'prod_beans', 'beans', 'Beans'), (${workspaceId}, 'prod_tea', 'tea', 'Tea')`;
  await sql`insert into billing_users (workspace_id, id, external_id) values (${workspaceId}, 'user_known', 'known')`;
  await sql`insert into external_accounts (workspace_id, id, external_id)
            values (${workspaceId}, 'ext_account_known', 'bank-known')`;
  await sql`insert into invoices (workspace_id, id, request_hash)
            values (${workspaceId}, 'seeded', 'seeded'), (${workspaceId}, 'flowing', 'flowing')`;
  await sql`insert into payment_flows (workspace_id, id, external_id, invoice_id, type, request_hash)
            values (${workspaceId}, 'pf_flowing', 'flow', 'flowing', 'single_invoice_settlement', 'flow')`;
  await sql`insert into billing_transactions (workspace_id, id, external_id, account_id, amount, currency, posted, request_hash)
            values (${workspaceId}, 'txn_seeded', 'seeded-tx', 'ext_account_known', 1, 'USD', '2026-11-01T00:00:00Z', 'seeded')`;
}

/** An answer as both workspaces can give it: without the instants PostgreSQL stamped. */
function comparable(answer: CreateInvoiceOutcome | SyncOutcome | typeof WRITE_ALONE) {
  if (answer === WRITE_ALONE) return 'written alone: the group failed';
  if (answer.outcome !== 'created') return answer;
  const { created: _created, ...rest } = answer;
  return rest;
}

/** Every row the calls wrote, as both workspaces hold it. */
async function rowsOf(workspaceId: string) {
  return {
    invoices: await sql`select id, tags, request_hash from invoices where workspace_id = ${workspaceId} order by id`,
    lineItems: await sql`
      select invoice_id, id, position, type, product_id, user_id, description, currency, unit_price::text,
             quantity, amount::text, tags
      from invoice_line_items where workspace_id = ${workspaceId} order by id`,
    users: await sql`select id, external_id from billing_users where workspace_id = ${workspaceId} order by id`,
    banks: await sql`select id, external_id from external_accounts where workspace_id = ${workspaceId} order by id`,
    transactions: await sql`
      select id, external_id, account_id, amount::text, posted, tags, allocated::text, request_hash
      from billing_transactions where workspace_id = ${workspaceId} order by id`,
    allocations: await sql`
      select id, transaction_id, position, invoice_id, user_id, type, amount::text
      from allocations where workspace_id = ${workspaceId} order by id`,
  };
}

describe('set-based billing groups', () => {
  it('answer every call and write every row as the one-call functions do, call by call in the same order', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(create, sync), { minLength: 1, maxLength: 16 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 4 }),
        async (specs, sizes) => {
          run++;
          const grouped = `grouped-${run}`;
          const alone = `alone-${run}`;
          await seedWorkspace(grouped);
          await seedWorkspace(alone);
          const calls = specs.map(plan);

          const groupedAnswers: ReturnType<typeof comparable>[] = [];
          for (const group of groupsOf(calls, sizes)) {
            const answers =
              group[0].spec.kind === 'create'
                ? await createInvoiceRows(
                    sql,
                    group.map((call) => createCall(grouped, call)),
                  )
                : await syncTransactionRows(
                    sql,
                    group.map((call) => syncCall(grouped, call)),
                  );
            groupedAnswers.push(...answers.map(comparable));
          }
          const aloneAnswers: ReturnType<typeof comparable>[] = [];
          for (const call of calls) {
            aloneAnswers.push(
              comparable(
                call.spec.kind === 'create'
                  ? await createInvoiceRow(sql, createCall(alone, call))
                  : await syncTransactionRow(sql, syncCall(alone, call)),
              ),
            );
          }

          expect(groupedAnswers).toEqual(aloneAnswers);
          expect(await rowsOf(grouped)).toEqual(await rowsOf(alone));
        },
      ),
      { numRuns: RUNS },
    );
  });
});
