import { checkTagList } from '../../core/billingTags.js';
import { fingerprint } from '../../core/fingerprint.js';
import { newId } from '../../core/ids.js';
import { resolvePrice, type ResolvedPrice } from '../../core/prices.js';
import { createOnce } from '../../db/createOnce.js';
import { findInvoice, type InvoiceRow, type LineItemRow } from '../../db/invoices.js';
import type { Handler, RequestBody } from '../handlerTypes.js';
import { currentInvoice } from './currentInvoice.js';
import {
  checkReferences,
  checkSpecs,
  lineItemSpec,
  lookUpReferences,
  unknownProducts,
  unknownUsers,
  type NewLineItemSpec,
} from './newLineItems.js';
import { presentInvoice } from './present.js';

type Body = RequestBody<'createInvoice'>;

/**
 * Creates an invoice at version 1 from either request form, in one statement (create_invoice, with group commit).
 * The invoice id is the idempotency key: claimed first, so an identical replay answers 200 and
 * another body 409 before any other check; then unknown products and users; then prices.
 */
export const createInvoice: Handler<'createInvoice'> = async ({ sql, writes, caller, body }) => {
  const workspaceId = caller.workspaceId;
  const { invoiceId, keyField, specs, tags } = readCreate(body);
  const requestHash = fingerprint(body);
  const invoiceTags = checkTagList(tags, '/body/tags');
  const lineTags = checkSpecs(specs);
  const result = await createOnce({
    key: { field: keyField, value: invoiceId, scope: 'in this workspace' },
    find: () => currentInvoice(sql, workspaceId, invoiceId),
    same: (stored) => stored.row.requestHash === requestHash,
    // create_invoice claims the id first, so the key is answered before the references and the prices.
    lookFirst: false,
    create: async (taken) => {
      let prices: ResolvedPrice[];
      try {
        prices = specs.map((spec) => resolvePrice(spec.price, spec.deprecatedAmount, spec.pointer));
      } catch (priceError) {
        // A bad price is a business rule: the key and the references are answered before it.
        if (await findInvoice(sql, workspaceId, invoiceId)) return taken();
        checkReferences(specs, await lookUpReferences(sql, workspaceId, specs));
        throw priceError;
      }
      const plannedUsers = new Set<string>();
      const items = specs.map((spec, index) => ({
        id: newId('li'),
        position: index + 1,
        type: spec.type,
        product_ref: spec.productRef,
        user_id: 'id' in spec.user ? spec.user.id : null,
        user_external_id: 'externalId' in spec.user ? spec.user.externalId : null,
        new_user_id: planUserId(spec.user, plannedUsers),
        description: spec.description,
        currency: spec.currency,
        unit_price: prices[index].unitPrice.toString(),
        quantity: prices[index].quantity,
        amount: prices[index].amount.toString(),
        tags: lineTags[index],
      }));
      const written = await writes.createInvoice({ workspaceId, invoiceId, tags: invoiceTags, requestHash, items });
      if (written.outcome === 'taken') return taken();
      if (written.outcome !== 'created')
        throw (written.outcome === 'unknown_product' ? unknownProducts : unknownUsers)(specs, written.indexes);
      // Answered from what was written, without reading it back.
      const row: InvoiceRow = {
        workspaceId,
        id: invoiceId,
        version: 1,
        tags: invoiceTags,
        requestHash,
        created: written.created,
        modified: null,
        diff: null,
      };
      const lineItems: LineItemRow[] = items.map((item, index) => ({
        invoiceId,
        id: item.id,
        position: item.position,
        type: item.type,
        productId: written.productIds[index],
        productCode: written.productCodes[index],
        userId: written.userIds[index],
        userExternalId: written.userExternalIds[index],
        description: item.description,
        currency: item.currency,
        unitPrice: item.unit_price,
        quantity: item.quantity,
        amount: item.amount,
        tags: item.tags,
      }));
      return presentInvoice(row, lineItems);
    },
  });
  return result.replayed
    ? { status: 200 as const, body: { data: result.row.invoice } }
    : { status: 201 as const, body: { data: result.row } };
};

/**
 * An id for the user the create makes when the external id is new; planned on the first item
 * naming each external id only (create_invoice takes the first planned id).
 */
function planUserId(user: NewLineItemSpec['user'], planned: Set<string>): string | null {
  if (!('externalId' in user) || planned.has(user.externalId)) return null;
  planned.add(user.externalId);
  return newId('user');
}

/** Both forms as one: the invoice id (and the field it came in), line item specs with their pointers, and tags. */
function readCreate(body: Body): {
  invoiceId: string;
  keyField: string;
  specs: NewLineItemSpec[];
  tags: { key: string; value: string }[];
} {
  if ('invoiceId' in body) {
    return {
      invoiceId: body.invoiceId,
      keyField: 'invoiceId',
      tags: [],
      specs: body.lineItems.map((item, index) => ({
        pointer: `/body/lineItems/${index}`,
        description: item.description,
        productRef: item.product_id,
        type: item.type,
        user: { externalId: item.user_id },
        currency: item.currencyCode,
        price: { amount: item.amount },
      })),
    };
  }
  return {
    invoiceId: body.invoice_id,
    keyField: 'invoice_id',
    tags: body.tags ?? [],
    specs: body.line_items.map((item, index) => lineItemSpec(item, `/body/line_items/${index}`)),
  };
}
