import { newId } from '../core/ids.js';
import { jsonb } from './json.js';
import type { Db } from './sql.js';
import type { components } from '../../generated/billing.js';

type CurrencyCode = components['schemas']['CurrencyCode'];
type PaymentDirection = components['schemas']['PaymentDirection'];

export type PaymentFlowRow = {
  id: string;
  externalId: string;
  invoiceId: string;
  type: 'single_invoice_settlement';
  requestHash: string;
  created: Date;
  planVersion: number;
  generatedAt: Date;
};

export type PaymentRow = {
  id: string;
  flowId: string;
  batch: number;
  position: number;
  direction: PaymentDirection;
  userId: string;
  userExternalId: string;
  currency: CurrencyCode;
  amount: string;
  paymentAccountId: string;
  created: Date;
  modified: Date;
  completedAt: Date | null;
};

/** What decides a flow's statuses: its invoice's line items and allocations, with transaction times. */
export type SettlementFacts = {
  lineItems: {
    invoiceId: string;
    userId: string;
    userExternalId: string;
    currency: CurrencyCode;
    type: 'payin' | 'payout';
    amount: string;
  }[];
  allocations: {
    invoiceId: string;
    userId: string;
    userExternalId: string;
    currency: CurrencyCode;
    type: 'invoice_payin' | 'invoice_payout';
    amount: string;
    transactionId: string;
    transactionCreated: Date;
  }[];
  invoiceModified: Map<string, Date | null>;
};

const flowColumns = (db: Db) => db`
  f.id, f.external_id as "externalId", f.invoice_id as "invoiceId", f.type, f.request_hash as "requestHash", f.created,
  f.plan_version as "planVersion", f.generated_at as "generatedAt"`;

const paymentColumns = (db: Db) => db`
  p.id, p.flow_id as "flowId", p.batch, p.position, p.direction, p.user_id as "userId", u.external_id as "userExternalId",
  p.currency, p.amount::text as amount, p.payment_account_id as "paymentAccountId", p.created, p.modified,
  p.completed_at as "completedAt"`;

/** Claims the external id; undefined when it is taken. */
export async function insertPaymentFlow(
  db: Db,
  workspaceId: string,
  flow: { externalId: string; invoiceId: string; requestHash: string },
): Promise<PaymentFlowRow | undefined> {
  const [row] = await db<PaymentFlowRow[]>`
    /* insertPaymentFlow */
    insert into payment_flows as f (workspace_id, id, external_id, invoice_id, type, request_hash)
    values (${workspaceId}, ${newId('pf')}, ${flow.externalId}, ${flow.invoiceId}, 'single_invoice_settlement', ${flow.requestHash})
    on conflict (workspace_id, external_id) do nothing
    returning ${flowColumns(db)}`;
  return row;
}

/** By id or external id; an id match wins. */
export async function findPaymentFlow(db: Db, workspaceId: string, ref: string): Promise<PaymentFlowRow | undefined> {
  const [row] = await db<PaymentFlowRow[]>`
    /* findPaymentFlow */
    select ${flowColumns(db)} from payment_flows f
    where f.workspace_id = ${workspaceId} and (f.id = ${ref} or f.external_id = ${ref})
    order by (f.id = ${ref}) desc limit 1`;
  return row;
}

export async function pagePaymentFlows(
  db: Db,
  workspaceId: string,
  options: { invoiceId?: string; after?: [string, string]; limit: number },
): Promise<PaymentFlowRow[]> {
  return db<PaymentFlowRow[]>`
    /* pagePaymentFlows */
    select ${flowColumns(db)} from payment_flows f
    where f.workspace_id = ${workspaceId}
      ${options.invoiceId !== undefined ? db`and f.invoice_id = ${options.invoiceId}` : db``}
      ${options.after ? db`and (f.created, f.id) > (${options.after[0]}::timestamptz, ${options.after[1]})` : db``}
    order by f.created, f.id limit ${options.limit + 1}`;
}

export async function flowsById(db: Db, workspaceId: string, ids: readonly string[]): Promise<PaymentFlowRow[]> {
  if (ids.length === 0) return [];
  return db<PaymentFlowRow[]>`
    /* flowsById */
    select ${flowColumns(db)} from payment_flows f where f.workspace_id = ${workspaceId} and f.id = any(${ids as string[]}::text[])`;
}

/** The payment account of each user in each currency, created the first time a plan needs it. */
export async function ensurePaymentAccounts(
  db: Db,
  workspaceId: string,
  pairs: readonly { userId: string; currency: CurrencyCode }[],
): Promise<Map<string, string>> {
  const unique = [...new Map(pairs.map((pair) => [`${pair.userId}|${pair.currency}`, pair])).values()].sort((a, b) =>
    `${a.userId}|${a.currency}` < `${b.userId}|${b.currency}` ? -1 : 1,
  );
  if (unique.length === 0) return new Map();
  await db`
    /* insertPaymentAccounts */
    insert into payment_accounts (workspace_id, id, user_id, currency)
    select ${workspaceId}, t.id, t.user_id, t.currency
    from unnest(${unique.map(() => newId('pacct'))}::text[], ${unique.map((p) => p.userId)}::text[], ${unique.map((p) => p.currency)}::text[]) as t(id, user_id, currency)
    order by t.user_id, t.currency
    on conflict (workspace_id, user_id, currency) do nothing`;
  const rows = await db<{ id: string; userId: string; currency: CurrencyCode }[]>`
    /* findPaymentAccounts */
    select id, user_id as "userId", currency from payment_accounts
    where workspace_id = ${workspaceId} and user_id = any(${unique.map((p) => p.userId)}::text[])`;
  return new Map(rows.map((row) => [`${row.userId}|${row.currency}`, row.id]));
}

export type NewPayment = {
  batch: number;
  direction: PaymentDirection;
  userId: string;
  currency: CurrencyCode;
  amount: string;
  paymentAccountId: string;
};

/** Appends payments to the flow's plan, from the given position on. */
export async function insertPayments(
  db: Db,
  workspaceId: string,
  flowId: string,
  created: Date,
  payments: readonly NewPayment[],
  firstPosition = 1,
): Promise<void> {
  if (payments.length === 0) return;
  await db`
    /* insertPayments */
    insert into payments (workspace_id, id, flow_id, batch, position, direction, user_id, currency, amount, payment_account_id, created, modified)
    select ${workspaceId}, t.id, ${flowId}, t.batch, t.position, t.direction, t.user_id, t.currency, t.amount, t.payment_account_id, ${created}, ${created}
    from jsonb_to_recordset(${jsonb(
      db,
      payments.map((payment, index) => ({
        id: newId('pay'),
        batch: payment.batch,
        position: firstPosition + index,
        direction: payment.direction,
        user_id: payment.userId,
        currency: payment.currency,
        amount: payment.amount,
        payment_account_id: payment.paymentAccountId,
      })),
    )}) as t(id text, batch integer, position integer, direction text, user_id text, currency text, amount numeric, payment_account_id text)`;
}

/** The flows settling these invoices, locked in id order: their plans change with the invoices' balances. */
export async function lockFlowsOfInvoices(
  db: Db,
  workspaceId: string,
  invoiceIds: readonly string[],
): Promise<PaymentFlowRow[]> {
  if (invoiceIds.length === 0) return [];
  return db<PaymentFlowRow[]>`
    /* lockFlowsOfInvoices */
    select ${flowColumns(db)} from payment_flows f
    where f.workspace_id = ${workspaceId} and f.invoice_id = any(${invoiceIds as string[]}::text[]) order by f.id for update`;
}

export async function updatePayments(
  db: Db,
  workspaceId: string,
  changes: readonly { id: string; batch: number; amount: string; modified: Date; completedAt: Date | null }[],
): Promise<void> {
  if (changes.length === 0) return;
  await db`
    /* updatePayments */
    update payments p set batch = t.batch, amount = t.amount, modified = t.modified, completed_at = t.completed_at
    from jsonb_to_recordset(${jsonb(
      db,
      changes.map((change) => ({
        id: change.id,
        batch: change.batch,
        amount: change.amount,
        modified: change.modified.toISOString(),
        completed_at: change.completedAt?.toISOString() ?? null,
      })),
    )}) as t(id text, batch integer, amount numeric, modified timestamptz, completed_at timestamptz)
    where p.workspace_id = ${workspaceId} and p.id = t.id`;
}

/** A new plan version, generated now. */
export async function bumpPaymentPlan(db: Db, workspaceId: string, flowId: string, generatedAt: Date): Promise<void> {
  await db`
    /* bumpPaymentPlan */
    update payment_flows set plan_version = plan_version + 1, generated_at = ${generatedAt}
    where workspace_id = ${workspaceId} and id = ${flowId}`;
}

export async function paymentsOfFlows(db: Db, workspaceId: string, flowIds: readonly string[]): Promise<PaymentRow[]> {
  if (flowIds.length === 0) return [];
  return db<PaymentRow[]>`
    /* paymentsOfFlows */
    select ${paymentColumns(db)} from payments p join billing_users u on u.workspace_id = p.workspace_id and u.id = p.user_id
    where p.workspace_id = ${workspaceId} and p.flow_id = any(${flowIds as string[]}::text[])
    order by p.flow_id, p.position`;
}

export async function pagePayments(
  db: Db,
  workspaceId: string,
  options: { flowId?: string; after?: [string, string]; limit: number },
): Promise<PaymentRow[]> {
  return db<PaymentRow[]>`
    /* pagePayments */
    select ${paymentColumns(db)} from payments p join billing_users u on u.workspace_id = p.workspace_id and u.id = p.user_id
    where p.workspace_id = ${workspaceId}
      ${options.flowId !== undefined ? db`and p.flow_id = ${options.flowId}` : db``}
      ${options.after ? db`and (p.created, p.id) > (${options.after[0]}::timestamptz, ${options.after[1]})` : db``}
    order by p.created, p.id limit ${options.limit + 1}`;
}

export async function findPayment(db: Db, workspaceId: string, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db<PaymentRow[]>`
    /* findPayment */
    select ${paymentColumns(db)} from payments p join billing_users u on u.workspace_id = p.workspace_id and u.id = p.user_id
    where p.workspace_id = ${workspaceId} and p.id = ${id}`;
  return row;
}

export async function settlementFacts(
  db: Db,
  workspaceId: string,
  invoiceIds: readonly string[],
): Promise<SettlementFacts> {
  const ids = [...new Set(invoiceIds)];
  if (ids.length === 0) return { lineItems: [], allocations: [], invoiceModified: new Map() };
  const [lineItems, allocations, invoices] = await Promise.all([
    db<SettlementFacts['lineItems']>`
      /* settlementLineItems */
      select li.invoice_id as "invoiceId", li.user_id as "userId", u.external_id as "userExternalId", li.currency, li.type, li.amount::text as amount
      from invoice_line_items li join billing_users u on u.workspace_id = li.workspace_id and u.id = li.user_id
      where li.workspace_id = ${workspaceId} and li.invoice_id = any(${ids}::text[])`,
    db<SettlementFacts['allocations']>`
      /* settlementAllocations */
      select a.invoice_id as "invoiceId", a.user_id as "userId", u.external_id as "userExternalId", t.currency, a.type, a.amount::text as amount,
             t.id as "transactionId", t.created as "transactionCreated"
      from allocations a join billing_transactions t on t.workspace_id = a.workspace_id and t.id = a.transaction_id
      join billing_users u on u.workspace_id = a.workspace_id and u.id = a.user_id
      where a.workspace_id = ${workspaceId} and a.invoice_id = any(${ids}::text[])
      order by t.created, t.id, a.position`,
    db<{ id: string; modified: Date | null }[]>`
      /* settlementInvoices */
      select id, modified from invoices where workspace_id = ${workspaceId} and id = any(${ids}::text[])`,
  ]);
  return { lineItems, allocations, invoiceModified: new Map(invoices.map((row) => [row.id, row.modified])) };
}

/** The payments of the flows and the facts their statuses derive from, read side by side. */
export async function settlementInputs(
  db: Db,
  workspaceId: string,
  flows: readonly Pick<PaymentFlowRow, 'id' | 'invoiceId'>[],
): Promise<{ payments: PaymentRow[]; facts: SettlementFacts }> {
  const [payments, facts] = await Promise.all([
    paymentsOfFlows(
      db,
      workspaceId,
      flows.map((flow) => flow.id),
    ),
    settlementFacts(db, workspaceId, [...new Set(flows.map((flow) => flow.invoiceId))]),
  ]);
  return { payments, facts };
}
