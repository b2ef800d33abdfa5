import { balanceQueueState, foldBalanceQueue } from '../../src/db/balanceFold.js';
import type { Sql } from '../../src/db/sql.js';
import { BILLING_WORLD, type BillingWorldIds } from './billingCases.js';
import { LEDGER_WORLD } from './ledgerCases.js';
import { LINK_WORLD, type LinkWorldIds } from './linkCases.js';

// The data the fuzz suite's requests aim at (so ids, codes and cursors exist), and the two views
// of "nothing was written": every table's rows, fingerprinted in the database, and full listings.

export async function seedWorld(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const graphql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data: any };
  };
  const productCodes = ['coffee-beans', 'tea', 'mugs'];
  for (const code of productCodes) {
    await fetch(`${baseUrl}/billing/products`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        code,
        description: code,
        paid_by_roles: [{ name: 'buyer' }],
        paid_to_roles: [{ name: 'seller' }],
      }),
    });
  }
  const billing = await seedBilling(baseUrl, headers);
  for (const key of ['shop', 'bank']) {
    await graphql(
      `mutation { storeSchema(schema: { key: "${key}", chartOfAccounts: { accounts: [{ key: "cash", type: asset }] } }) { __typename } }`,
    );
  }
  for (const i of [1, 2, 3, 4, 5]) {
    await graphql(
      `mutation { createLedger(ik: "seed-${i}", ledger: { name: "Seed ${i}" }${i % 2 ? ', schema: { key: "shop" }' : ''}) { __typename } }`,
    );
  }
  // The ledgers the ledger cases aim at: one on a schema with templates and entry types, one
  // without, each with an entry, so refusals run the whole posting path.
  await graphql('mutation($s: SchemaInput!) { storeSchema(schema: $s) { __typename } }', { s: LEDGER_WORLD.schema });
  await graphql(
    `mutation { createLedger(ik: "${LEDGER_WORLD.schemaLedger}", ledger: { name: "Wallets" }, schema: { key: "${LEDGER_WORLD.schemaKey}" }) { __typename } }`,
  );
  await graphql(
    `mutation { createLedger(ik: "${LEDGER_WORLD.plainLedger}", ledger: { name: "Books" }) { __typename } }`,
  );
  await graphql(
    'mutation($l: SafeString!, $a: [CreateLedgerAccountsInput!]!) { createLedgerAccounts(ledger: { ik: $l }, ledgerAccounts: $a) { __typename } }',
    { l: LEDGER_WORLD.plainLedger, a: LEDGER_WORLD.plainAccounts },
  );
  const seeded = await graphql(
    'mutation($e: LedgerEntryInput!) { addLedgerEntry(ik: "fz-seed", entry: $e) { __typename } }',
    { e: { ledger: { ik: LEDGER_WORLD.schemaLedger }, type: 'fund', parameters: { user: 'u1', amount: '100' } } },
  );
  if (seeded.data?.addLedgerEntry?.__typename !== 'AddLedgerEntryResult')
    throw new Error(`fuzz world: seeding an entry failed: ${JSON.stringify(seeded)}`);
  const links = await seedLinks(graphql);
  const pages = await graphql(`
    {
      ledgers(first: 2) {
        pageInfo {
          endCursor
        }
      }
      schemas(first: 1) {
        pageInfo {
          endCursor
        }
      }
      schema(schema: { key: "shop" }) {
        ledgers(first: 1) {
          pageInfo {
            endCursor
          }
        }
      }
    }
  `);
  const cursors = [
    pages.data.ledgers.pageInfo.endCursor,
    pages.data.schemas.pageInfo.endCursor,
    pages.data.schema.ledgers.pageInfo.endCursor,
  ].filter((cursor): cursor is string => typeof cursor === 'string');

  const workspaceId: string = (await graphql('{ workspace { id } }')).data.workspace.id;
  return {
    workspaceId,
    productCodes,
    cursors,
    billing,
    links,
    /** Everything a client can list, in full. */
    async listings() {
      const get = async (path: string) => (await fetch(`${baseUrl}/billing${path}`, { headers })).json();
      const [products, invoices, transactions, history, flows] = await Promise.all([
        get('/products'),
        get('/invoices'),
        get('/transactions'),
        get(`/invoices/${BILLING_WORLD.invoice}/history`),
        get('/payment-flows/fz-flow-1'),
      ]);
      const lists =
        await graphql(`{ ledgers(first: 200) { nodes { id ik name } } schemas(first: 200) { nodes { key name versions(first: 200) { nodes { version } } } } }
        links { nodes { id name externalAccounts { nodes { externalId name currency { code } txs(first: 200) { nodes { id amount description } } } } } }
        customCurrencies(first: 200) { nodes { customCurrencyId customCode name precision } } }`);
      return { products, invoices, transactions, history, flows, lists: lists.data };
    },
  };
}

/** Two invoices and a transaction allocated to the first: what the billing cases aim at. */
/** A custom link with one account, one transaction reconciled into a linked ledger account, and a custom currency. */
async function seedLinks(
  graphql: (query: string, variables?: Record<string, unknown>) => Promise<{ data: any }>,
): Promise<LinkWorldIds> {
  await graphql(
    `mutation { createCustomCurrency(customCurrency: { customCurrencyId: "${LINK_WORLD.currency}", customCode: "FZP", name: "Fuzz points", precision: 0 }) { __typename } }`,
  );
  const link = await graphql(
    `mutation { createCustomLink(ik: "${LINK_WORLD.linkIk}", name: "${LINK_WORLD.linkName}") { ... on CreateCustomLinkResult { link { id } } } }`,
  );
  const linkId = link.data.createCustomLink.link.id;
  const accounts = await graphql(
    `mutation($l: ID!) { syncCustomAccounts(link: { id: $l }, accounts: [{ externalId: "${LINK_WORLD.account}", name: "Ops" }]) {
    ... on SyncCustomAccountsResult { accounts { id } } } }`,
    { l: linkId },
  );
  const accountId = accounts.data.syncCustomAccounts.accounts[0].id;
  const txs = await graphql(
    `
      mutation ($l: ID!, $t: [CustomTxInput!]!) {
        syncCustomTxs(link: { id: $l }, txs: $t) {
          ... on SyncCustomTxsResult {
            txs {
              id
            }
          }
        }
      }
    `,
    { l: linkId, t: [{ ...LINK_WORLD.tx, account: { id: accountId }, description: 'Seeded' }] },
  );
  const txId = txs.data.syncCustomTxs.txs[0].id;
  await graphql(`mutation { createLedger(ik: "${LINK_WORLD.ledger}", ledger: { name: "Reconciled" }) { __typename } }`);
  await graphql(
    `mutation($l: ID!) { createLedgerAccounts(ledger: { ik: "${LINK_WORLD.ledger}" }, ledgerAccounts: [
    { ik: "bank", name: "Bank", type: asset, linkedAccount: { linkId: $l, externalId: "${LINK_WORLD.account}" } }, { ik: "sales", name: "Sales", type: income }]) { __typename } }`,
    { l: linkId },
  );
  const reconciled = await graphql(
    `
      mutation ($e: LedgerEntryInput!) {
        reconcileTx(entry: $e) {
          __typename
        }
      }
    `,
    {
      e: {
        ledger: { ik: LINK_WORLD.ledger },
        lines: [
          { account: { path: 'bank' }, amount: LINK_WORLD.tx.amount, tx: { id: txId } },
          { account: { path: 'sales' }, amount: LINK_WORLD.tx.amount },
        ],
      },
    },
  );
  if (reconciled.data?.reconcileTx?.__typename !== 'ReconcileTxResult')
    throw new Error(`fuzz world: reconciling failed: ${JSON.stringify(reconciled)}`);
  return { linkId, accountId, txId };
}

async function seedBilling(baseUrl: string, headers: Record<string, string>): Promise<BillingWorldIds> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}/billing${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await response.json();
    if (response.status !== 201)
      throw new Error(`fuzz world: POST ${path} answered ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const invoice = await post('/invoices', BILLING_WORLD.create(BILLING_WORLD.invoice));
  const other = await post('/invoices', BILLING_WORLD.create(BILLING_WORLD.otherInvoice));
  const transaction = await post('/transactions', BILLING_WORLD.sync);
  await post('/payment-flows', {
    external_id: 'fz-flow-1',
    invoice: { id: BILLING_WORLD.invoice },
    type: 'single_invoice_settlement',
  });
  return {
    lineItems: invoice.line_items.map((item: { id: string }) => item.id),
    otherLineItems: other.line_items.map((item: { id: string }) => item.id),
    accountId: transaction.account.id,
    userId: transaction.allocations[0].user.id,
  };
}

/**
 * Folds the balance deltas the world's postings queued: the server's own fold pauses for seconds
 * between passes, and one that ran during the fuzz would change the tables it compares.
 */
export async function drainBalanceQueue(sql: Sql, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await balanceQueueState(sql)).pending > 0) {
    if (Date.now() > deadline) throw new Error(`The balance queue did not drain in ${timeoutMs} ms.`);
    // Folds nothing while the server's fold holds the lock: the next round sees that fold's work.
    const { folded } = await foldBalanceQueue(sql, 100_000);
    if (folded === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One hash over every row of every table of the public schema. */
export async function databaseFingerprint(sql: Sql): Promise<string> {
  const tables = await sql<{ name: string }[]>`
    /* fuzzTables */
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`;
  const parts: string[] = [];
  for (const { name } of tables) {
    const [row] = await sql<{ digest: string | null; rows: string }[]>`
      select md5(string_agg(t::text, ',' order by t::text)) as digest, count(*)::text as rows from ${sql(name)} t`;
    parts.push(`${name}:${row.rows}:${row.digest}`);
  }
  return parts.join('\n');
}
