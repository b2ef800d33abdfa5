import { checkTagList } from '../../core/billingTags.js';
import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { insertInvoice, insertLineItems } from '../../db/invoices.js';
import type { Handler, RequestBody } from '../handler.js';
import { currentInvoice } from './currentInvoice.js';
import { checkSpecs, completeLineItems, lookUpReferences, type NewLineItemSpec } from './newLineItems.js';
import { presentInvoice, type Invoice } from './present.js';

type Body = RequestBody<'createInvoice'>;

/**
 * Creates an invoice at version 1 from either request form. The invoice id is the idempotency
 * key: claimed first, so an identical replay answers 200 and another body 409 before any check.
 */
export const createInvoice: Handler<'createInvoice'> = async ({ sql, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const { invoiceId, specs, tags } = readCreate(body);
  const requestHash = fingerprint(body);
  const outcome = await sql.begin(async (tx): Promise<{ invoice: Invoice } | { replayOf: string }> => {
    const invoiceTags = checkTagList(tags, '/body/tags');
    const lineTags = checkSpecs(specs);
    // The claim and the lookups travel together; the lookups are only used once the claim holds.
    const [claimed, references] = await Promise.all([
      insertInvoice(tx, workspaceId, invoiceId, invoiceTags, requestHash), lookUpReferences(tx, workspaceId, specs)]);
    if (!claimed) return { replayOf: invoiceId };
    const items = await completeLineItems(tx, workspaceId, invoiceId, specs, lineTags, references, 1);
    await insertLineItems(tx, workspaceId, invoiceId, items);
    return { invoice: presentInvoice(claimed, items) };
  });
  if ('invoice' in outcome) return { status: 201, body: { data: outcome.invoice } };
  const current = await currentInvoice(sql, workspaceId, outcome.replayOf);
  if (current.row.requestHash !== requestHash) {
    throw new DomainError('idempotency_key_reused', 'This idempotency key was already used with a different request body.');
  }
  return { status: 200, body: { data: current.invoice } };
};

/** Both forms as one: the invoice id, line item specs with their pointers, and tags. */
function readCreate(body: Body): { invoiceId: string; specs: NewLineItemSpec[]; tags: { key: string; value: string }[] } {
  if ('invoiceId' in body) {
    return {
      invoiceId: body.invoiceId,
      tags: [],
      specs: body.lineItems.map((item, index) => ({
        pointer: `/body/lineItems/${index}`, description: item.description, productRef: item.product_id, type: item.type,
        user: { externalId: item.user_id }, currency: item.currencyCode, price: { amount: item.amount },
      })),
    };
  }
  return {
    invoiceId: body.invoice_id,
    tags: body.tags ?? [],
    specs: body.line_items.map((item, index) => ({
      pointer: `/body/line_items/${index}`, description: item.description, productRef: item.product_id, type: item.type,
      user: 'id' in item.user ? { id: item.user.id } : { externalId: item.user.external_id },
      currency: item.currency_code ?? 'USD', price: item.price, deprecatedAmount: item.amount, tags: item.tags,
    })),
  };
}
