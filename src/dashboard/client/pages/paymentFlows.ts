import { billing, billingSearch } from '../api.js';
import type { PaymentBatch, PaymentFlow } from '../billingTypes.js';
import { h, table } from '../dom.js';
import { formatInstant } from '../format.js';
import { pagedTable } from '../paging.js';
import { link, searchParam } from '../router.js';
import { code, facts, heading, section } from '../view.js';
import { billingAmount } from './billingAmounts.js';
import { planDiagram } from './planDiagram.js';

export async function paymentFlowsPage(): Promise<HTMLElement> {
  const invoice = searchParam('invoice');
  return h(
    'div',
    null,
    heading('Billing', invoice ? `Payment flows of ${invoice}` : 'Payment flows'),
    await pagedTable<PaymentFlow>({
      caption: 'Payment flows',
      head: ['Flow', 'Invoice', 'Status', 'Plan version', 'Modified'],
      testId: 'payment-flows',
      load: async (after) => {
        const page = await billingSearch<PaymentFlow>('/payment-flows/search', {
          ...(invoice && { invoice_id: invoice }),
          page_info: { limit: 50, ...(after && { after }) },
        });
        return { nodes: page.data, pageInfo: { hasNextPage: Boolean(page.next), endCursor: page.next ?? null } };
      },
      row: (flow) => [
        link({ page: 'paymentFlow', flowId: flow.id }, flow.external_id),
        invoiceLink(flow),
        flow.status,
        String(flow.payment_plan.version),
        formatInstant(flow.modified),
      ],
    }),
  );
}

export async function paymentFlowPage(flowId: string): Promise<HTMLElement> {
  const flow = await billing<PaymentFlow>('GET', `/payment-flows/${encodeURIComponent(flowId)}`);
  const plan = flow.payment_plan;
  return h(
    'div',
    null,
    heading(
      'Payment flow',
      flow.external_id,
      facts([
        ['Id', code(flow.id)],
        ['Invoice', invoiceLink(flow)],
        ['Type', flow.type],
        ['Status', flow.status],
        ['Plan', `version ${plan.version}, generated ${formatInstant(plan.generated_at)}`],
        ['Modified', formatInstant(flow.modified)],
      ]),
    ),
    section('Plan', planDiagram(plan.batches)),
    plan.batches.map((batch) => batchTable(batch)),
  );
}

function batchTable(batch: PaymentBatch): HTMLElement {
  return section(
    `${batch.label} (${batch.batch_id}, ${batch.status})`,
    table(
      `Payments of ${batch.label}`,
      ['Payment', 'Direction', 'User', 'Amount', 'Status'],
      batch.payments.map((payment) => [
        code(payment.payment_id),
        payment.direction,
        payment.user.external_id,
        billingAmount(payment.amount, payment.currency),
        payment.status,
      ]),
    ),
  );
}

/** The flow's invoice: `id` is the caller's invoice id (`external_id` repeats it). */
const invoiceLink = (flow: PaymentFlow) => link({ page: 'invoice', invoiceId: flow.invoice.id }, flow.invoice.id);
