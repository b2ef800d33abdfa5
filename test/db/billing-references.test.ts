import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { checkBillingReferences } from '../../src/db/billingChecks.js';
import { useTestDatabase } from '../support/database.js';

// Billing rows name their parents without foreign keys; the check must find each kind of row
// left without its parent (the billing integration tests run it after their writes).

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
});

describe('checkBillingReferences', () => {
  it('finds nothing in a database without billing rows', async () => {
    expect(await checkBillingReferences(sql)).toEqual([]);
  });

  it('finds every row that names a missing invoice, product, user, transaction, bank account or workspace', async () => {
    await sql`insert into workspaces (id, name) values ('w', 'w')`;
    await sql`
      insert into invoice_line_items (workspace_id, invoice_id, id, position, type, product_id, user_id, description, currency, unit_price, quantity, amount)
      values ('w', 'no-invoice', 'li_1', 1, 'payin', 'no-product', 'no-user', 'd', 'USD', 1, 1, 1)`;
    await sql`
      insert into billing_transactions (workspace_id, id, external_id, account_id, amount, currency, posted, tags, allocated, request_hash)
      values ('gone', 'txn_1', 'tx-1', 'no-account', 10, 'USD', now(), '[]', 5, 'h')`;
    await sql`
      insert into allocations (workspace_id, id, transaction_id, position, invoice_id, user_id, type, amount)
      values ('w', 'alloc_1', 'no-transaction', 1, 'no-invoice', 'no-user', 'invoice_payin', 5)`;
    const found = await checkBillingReferences(sql);
    expect(found.map((v) => `${v.check}: ${v.subject}`).sort()).toEqual([
      'allocation names a transaction: alloc_1',
      'allocation names a user: alloc_1',
      'allocation names an invoice: alloc_1',
      'line item names a product: li_1',
      'line item names a user: li_1',
      'line item names an invoice: li_1',
      'row names a workspace: txn_1',
      'transaction names a bank account: txn_1',
    ]);
  });
});
