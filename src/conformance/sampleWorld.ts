// Builds the spec's `x-tally-sample-world` in a fresh workspace through the public API, and maps
// the sample ids the examples use to the ids this server generated. Sections whose operations
// the server does not serve yet are left out (their examples are pending too).

/** The workspace an example runs in: its id and a client of it, with a token. */
export type ExampleWorkspace = { workspaceId: string; clientId: string; clientSecret: string; token: string };

type World = {
  client: { client_id: string; client_secret: string; workspace: string };
  products?: Record<string, unknown>[];
  invoices?: { create: Record<string, unknown>; then_patch?: Record<string, unknown> }[];
  payment_flows?: { create: Record<string, unknown> }[];
  transactions?: { sync: Record<string, unknown> }[];
  ids: Record<string, string>;
};

export type BuiltWorld = {
  /** Sample value (id, client id, secret) → the real one in this workspace. */
  substitutions: Map<string, string>;
};

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

export async function buildSampleWorld(
  world: World,
  baseUrl: string,
  workspace: ExampleWorkspace,
  served: Set<string>,
): Promise<BuiltWorld> {
  const api: Api = async (method, path, body) => {
    const response = await fetch(`${baseUrl}/billing${path}`, {
      method,
      headers: { authorization: `Bearer ${workspace.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok)
      throw new Error(`sample world: ${method} ${path} answered ${response.status} ${JSON.stringify(json)}`);
    return json;
  };

  if (served.has('createProduct')) {
    for (const product of world.products ?? []) await api('POST', '/products', product);
  }
  if (served.has('createInvoice')) {
    for (const invoice of world.invoices ?? []) {
      const created = (await api('POST', '/invoices', invoice.create)).data;
      if (invoice.then_patch) await api('PATCH', `/invoices/${encodeURIComponent(created.id)}`, invoice.then_patch);
    }
  }
  // The flow is created before any transaction, as the world describes.
  if (served.has('createPaymentFlow')) {
    for (const flow of world.payment_flows ?? []) await api('POST', '/payment-flows', flow.create);
  }
  if (served.has('syncTransaction')) {
    for (const transaction of world.transactions ?? []) await api('POST', '/transactions', transaction.sync);
  }

  const substitutions = new Map<string, string>([
    [world.client.client_id, workspace.clientId],
    [world.client.client_secret, workspace.clientSecret],
  ]);
  const resolvers = await idResolvers(api, served, workspace);
  for (const [sampleId, description] of Object.entries(world.ids)) {
    const real = resolvers(description);
    if (real) substitutions.set(sampleId, real);
  }
  return { substitutions };
}

/** Finds the real id that a sample-world `ids` description names, for the resources served. */
async function idResolvers(api: Api, served: Set<string>, workspace: ExampleWorkspace) {
  const products: { id: string; code: string; paid_by_roles: Role[]; paid_to_roles: Role[] }[] = served.has(
    'listProducts',
  )
    ? (await api('GET', '/products')).data
    : [];
  const roles = new Map(products.flatMap((p) => [...p.paid_by_roles, ...p.paid_to_roles]).map((r) => [r.name, r.id]));
  const invoices: Invoice[] = served.has('getInvoice')
    ? await Promise.all(
        ((await api('GET', '/invoices')).data as Invoice[]).map(
          async (invoice) => (await api('GET', `/invoices/${encodeURIComponent(invoice.id)}`)).data,
        ),
      )
    : [];
  const transactions: Transaction[] = served.has('listTransactions') ? (await api('GET', '/transactions')).data : [];
  const flows: Flow[] = served.has('searchPaymentFlows')
    ? (await api('POST', '/payment-flows/search', { page_info: { limit: 200 } })).data
    : [];
  const payments: Payment[] = served.has('searchPayments')
    ? (await api('POST', '/payments/search', { page_info: { limit: 200 } })).data
    : [];
  const planned = flows.flatMap((flow) =>
    flow.payment_plan.batches.flatMap((batch) => batch.payments.map((entry) => ({ flow, entry }))),
  );
  const users = new Map([
    ...invoices.flatMap((invoice) =>
      invoice.payments.map((payment) => [payment.user.external_id, payment.user.id] as const),
    ),
    ...transactions.flatMap((transaction) =>
      transaction.allocations.map((allocation) => [allocation.user.external_id, allocation.user.id] as const),
    ),
  ]);
  return (description: string): string | undefined => {
    if (description.startsWith('workspace of ')) return workspace.workspaceId;
    const [kind, name] = [description.split(' ')[0], description.split(' ').slice(1).join(' ')];
    if (kind === 'role') return roles.get(name);
    if (kind === 'product') return products.find((p) => p.code === name)?.id;
    // Users show their ids only in allocations and plans (line items carry the external id).
    if (kind === 'user')
      return users.get(name) ?? planned.find(({ entry }) => entry.user.external_id === name)?.entry.user.id;
    // "inv-1001 line item Coffee beans 1 kg (payin)": the invoice, then the description and, when given, the type.
    const lineItem = /^(\S+) line item (.+?)(?: \((payin|payout)\))?$/.exec(description);
    if (lineItem) {
      return invoices
        .find((invoice) => invoice.id === lineItem[1])
        ?.line_items.find((item) => item.description === lineItem[2] && (!lineItem[3] || item.type === lineItem[3]))
        ?.id;
    }
    if (kind === 'transaction') return transactions.find((t) => t.external_id === name)?.id;
    if (description.startsWith('external account '))
      return transactions.find((t) => t.account.external_id === name.replace(/^account /, ''))?.account.id;
    if (description.startsWith('payment flow '))
      return flows.find((flow) => flow.external_id === description.slice('payment flow '.length))?.id;
    // "settle-inv-1001 payment from customer-42 (inbound)", "... payment to merchant-7 (outbound)"
    const payment = /^(\S+) payment (?:from|to) (\S+) \((inbound|outbound)\)$/.exec(description);
    if (payment) {
      return planned.find(
        ({ flow, entry }) =>
          flow.external_id === payment[1] && entry.user.external_id === payment[2] && entry.direction === payment[3],
      )?.entry.payment_id;
    }
    // "payment account of customer-42 in USD"
    const account = /^payment account of (\S+) in (\S+)$/.exec(description);
    if (account) {
      const entry = planned.find(
        ({ entry: e }) => e.user.external_id === account[1] && e.currency === account[2],
      )?.entry;
      return payments.find((p) => p.id === entry?.payment_id)?.payment_account_id;
    }
    const allocation = /^allocation of (\S+) to (\S+)$/.exec(description);
    if (allocation)
      return transactions
        .find((t) => t.external_id === allocation[1])
        ?.allocations.find((a) => a.invoice_id === allocation[2])?.id;
    return undefined;
  };
}

type Role = { id: string; name: string };
type Invoice = {
  id: string;
  line_items: { id: string; description: string; type: string; user_id: string }[];
  payments: { user: { id: string; external_id: string } }[];
};
type Flow = {
  id: string;
  external_id: string;
  payment_plan: {
    batches: {
      payments: {
        payment_id: string;
        direction: string;
        currency: string;
        user: { id: string; external_id: string };
      }[];
    }[];
  };
};
type Payment = { id: string; payment_account_id: string };
type Transaction = {
  id: string;
  external_id: string;
  account: { id: string; external_id: string };
  allocations: { id: string; invoice_id: string; user: { id: string; external_id: string } }[];
};

/** Replaces every string that is a sample value with its real counterpart, deeply. */
export function substitute<T>(value: T, substitutions: Map<string, string>): T {
  if (typeof value === 'string') return (substitutions.get(value) ?? value) as T;
  if (Array.isArray(value)) return value.map((item) => substitute(item, substitutions)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, substitutions)])) as T;
  }
  return value;
}
