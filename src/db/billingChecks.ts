import type { Db } from './sql.js';

// Billing rows name their invoice, product, user, transaction and bank account without foreign
// keys (migration 20261201T000000 says why); this finds any row whose named parent is missing.

export type BillingViolation = { check: string; workspaceId: string; subject: string };

/** Every billing row that names a row that does not exist, across all workspaces. */
export async function checkBillingReferences(db: Db): Promise<BillingViolation[]> {
  return db<BillingViolation[]>`
    /* checkBillingReferences */
    select 'line item names an invoice' as check, x.workspace_id as "workspaceId", x.id as subject
    from invoice_line_items x where not exists (select 1 from invoices p where p.workspace_id = x.workspace_id and p.id = x.invoice_id)
    union all
    select 'line item names a product', x.workspace_id, x.id
    from invoice_line_items x where not exists (select 1 from products p where p.workspace_id = x.workspace_id and p.id = x.product_id)
    union all
    select 'line item names a user', x.workspace_id, x.id
    from invoice_line_items x where not exists (select 1 from billing_users p where p.workspace_id = x.workspace_id and p.id = x.user_id)
    union all
    select 'allocation names an invoice', x.workspace_id, x.id
    from allocations x where not exists (select 1 from invoices p where p.workspace_id = x.workspace_id and p.id = x.invoice_id)
    union all
    select 'allocation names a transaction', x.workspace_id, x.id
    from allocations x where not exists (select 1 from billing_transactions p where p.workspace_id = x.workspace_id and p.id = x.transaction_id)
    union all
    select 'allocation names a user', x.workspace_id, x.id
    from allocations x where not exists (select 1 from billing_users p where p.workspace_id = x.workspace_id and p.id = x.user_id)
    union all
    select 'transaction names a bank account', x.workspace_id, x.id
    from billing_transactions x where not exists (select 1 from external_accounts p where p.workspace_id = x.workspace_id and p.id = x.account_id)
    union all
    select 'row names a workspace', x.workspace_id, x.id
    from (select workspace_id, id from invoices union all select workspace_id, id from billing_transactions
          union all select workspace_id, id from billing_users union all select workspace_id, id from external_accounts) x
    where not exists (select 1 from workspaces w where w.id = x.workspace_id)`;
}
