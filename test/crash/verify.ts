import type { Sql } from '../../src/db/sql.js';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { admin } from '../support/tallyProcess.js';
import {
  ASSETS,
  BILLING_ACCOUNTS,
  INCOME,
  LEDGER_IK,
  LIABILITIES,
  LINKED,
  entriesOf,
  type Api,
  type EntryWrite,
  type OpRecord,
} from './workload.js';

// What the crash run must leave behind, read from the database directly and through the API:
// every acknowledged write present exactly once and as sent, nothing present that no client
// sent (or that was refused), balances equal to the acknowledged writes, the invariants clean.

export type Check = { id: string; name: string; pass: boolean; detail: string; problems: string[] };

const MAX_PROBLEMS = 20;

function check(id: string, name: string, problems: string[], detail: string): Check {
  return { id, name, pass: problems.length === 0, detail, problems: problems.slice(0, MAX_PROBLEMS) };
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
}

const linesKey = (lines: { path: string; amount: bigint | string }[]) =>
  lines
    .map((line) => `${line.path} ${line.amount.toString()}`)
    .sort()
    .join(', ');

/** Expected state: what acknowledged writes put in, and the keys of writes that must not be there. */
function expectations(records: OpRecord[]) {
  const entries = new Map<string, EntryWrite>();
  const refusedIks = new Set<string>();
  const unresolvedIks = new Set<string>();
  const reconciledTxs = new Map<string, { amount: bigint; entryIk: string }>();
  const syncedTxs = new Map<string, bigint>();
  const openTxs = new Set<string>(); // synced or maybe synced, not reconciled for sure
  const invoices = new Map<string, { amount: bigint; user: string }>();
  const transactions = new Map<
    string,
    { account: string; amount: bigint; allocation?: { invoiceId: string; amount: bigint } }
  >();
  const refusedKeys = new Set<string>(); // billing and external-tx keys that must be absent
  const unresolvedKeys = new Set<string>(); // may or may not be present
  for (const record of records) {
    const { op } = record;
    if (op.kind === 'entry' || op.kind === 'batch') {
      for (const entry of op.kind === 'entry' ? [op.entry] : op.entries) {
        if (record.status === 'acknowledged') entries.set(entry.ik, entry);
        else (record.status === 'refused' ? refusedIks : unresolvedIks).add(entry.ik);
      }
    } else if (op.kind === 'reconcile') {
      const sync = record.sync?.status ?? record.status;
      if (sync === 'acknowledged') syncedTxs.set(op.txExternalId, op.amount);
      else (sync === 'refused' ? refusedKeys : unresolvedKeys).add(`ext-tx ${op.txExternalId}`);
      if (record.status === 'acknowledged') {
        for (const entry of entriesOf(record)) entries.set(entry.ik, entry);
        reconciledTxs.set(op.txExternalId, { amount: op.amount, entryIk: record.entryIk! });
      } else if (sync === 'acknowledged') {
        openTxs.add(op.txExternalId);
        if (record.status === 'refused') refusedKeys.add(`reconcile ${op.txExternalId}`);
        else unresolvedKeys.add(`reconcile ${op.txExternalId}`);
      }
    } else if (op.kind === 'invoice') {
      if (record.status === 'acknowledged') invoices.set(op.invoiceId, { amount: op.amount, user: op.user });
      else (record.status === 'refused' ? refusedKeys : unresolvedKeys).add(`invoice ${op.invoiceId}`);
    } else {
      if (record.status === 'acknowledged') {
        transactions.set(op.externalId, {
          account: op.account,
          amount: op.amount,
          allocation: op.allocation && { invoiceId: op.allocation.invoiceId, amount: op.allocation.amount },
        });
      } else (record.status === 'refused' ? refusedKeys : unresolvedKeys).add(`transaction ${op.externalId}`);
    }
  }
  return {
    entries,
    refusedIks,
    unresolvedIks,
    reconciledTxs,
    syncedTxs,
    openTxs,
    invoices,
    transactions,
    refusedKeys,
    unresolvedKeys,
  };
}

export type VerifyInput = { sql: Sql; api: Api; databaseUrl: string; records: OpRecord[] };
export type Verification = { checks: Check[]; counts: Record<string, number>; adminCheckOutput: string };

export async function verify({ sql, api, databaseUrl, records }: VerifyInput): Promise<Verification> {
  const expected = expectations(records);
  const checks: Check[] = [];
  const [ledger] = await sql<{ id: string }[]>`select id from ledgers where ik = ${LEDGER_IK}`;

  // ---- Ledger entries: present once, as sent; nothing else ----
  const rows = await sql<{ ik: string; position: number; id: string; lines: string[] | null; tx: string | null }[]>`
    select e.ik, e.reversal_position as position, e.id,
           array_agg(a.path || ' ' || l.amount::text order by l.position) filter (where l.id is not null) as lines,
           (select t.external_id from ledger_reconciliations r join ledger_external_txs t on t.workspace_id = r.workspace_id and t.id = r.tx_id
            where r.workspace_id = e.workspace_id and r.entry_id = e.id limit 1) as tx
    from ledger_entries e
    left join ledger_lines l on l.workspace_id = e.workspace_id and l.entry_id = e.id
    left join ledger_accounts a on a.workspace_id = l.workspace_id and a.id = l.account_id
    where e.ledger_id = ${ledger.id}
    group by e.workspace_id, e.id, e.ik, e.reversal_position`;
  const byIk = groupBy(rows, (row) => row.ik);
  const missingOrWrong: string[] = [];
  for (const [ik, entry] of expected.entries) {
    const found = byIk.get(ik) ?? [];
    if (found.length !== 1) missingOrWrong.push(`${ik}: ${found.length} entries`);
    else if ([...(found[0].lines ?? [])].sort().join(', ') !== linesKey(entry.lines)) {
      missingOrWrong.push(`${ik}: lines ${JSON.stringify(found[0].lines)}, sent ${linesKey(entry.lines)}`);
    }
  }
  checks.push(
    check(
      'entries',
      'every acknowledged ledger entry present exactly once, with the lines sent',
      missingOrWrong,
      `${expected.entries.size} acknowledged entries (single, batched and reconciling)`,
    ),
  );

  const extra: string[] = [];
  let unresolvedPresent = 0;
  for (const row of rows) {
    if (expected.entries.has(row.ik)) continue;
    if (expected.unresolvedIks.has(row.ik) || (row.tx && expected.unresolvedKeys.has(`reconcile ${row.tx}`))) {
      unresolvedPresent++;
      continue;
    }
    const why =
      expected.refusedIks.has(row.ik) || (row.tx && expected.refusedKeys.has(`reconcile ${row.tx}`))
        ? 'refused'
        : 'never sent';
    extra.push(`${row.ik}${row.tx ? ` (reconciles ${row.tx})` : ''}: present, ${why}`);
  }
  checks.push(
    check(
      'no-extra-entries',
      'no ledger entry that no client sent, or that was refused',
      extra,
      `${rows.length} entries in the ledger${unresolvedPresent ? `, ${unresolvedPresent} of unresolved writes` : ''}`,
    ),
  );

  // Lines and entries carry no foreign keys (they would lock their parents): check the references.
  const orphans = await sql<{ what: string }[]>`
    select 'line ' || l.id || ' without its entry' as what from ledger_lines l
    where not exists (select 1 from ledger_entries e where e.workspace_id = l.workspace_id and e.id = l.entry_id)
    union all
    select 'line ' || l.id || ' without its account' from ledger_lines l
    where not exists (select 1 from ledger_accounts a where a.workspace_id = l.workspace_id and a.id = l.account_id)
    union all
    select 'entry ' || e.id || ' without its ledger' from ledger_entries e
    where not exists (select 1 from ledgers g where g.workspace_id = e.workspace_id and g.id = e.ledger_id)`;
  checks.push(
    check(
      'references',
      'every line names an existing entry and account, every entry an existing ledger',
      orphans.map((row) => row.what),
      'lines and entries checked against their parents',
    ),
  );

  // ---- Synced external transactions and their reconciliation ----
  const externalTxs = await sql<{ externalId: string; amount: string; live: boolean; reconciliations: number }[]>`
    select t.external_id as "externalId", t.amount::text as amount, t.deleted_at is null as live,
           (select count(*)::int from ledger_reconciliations r where r.workspace_id = t.workspace_id and r.tx_id = t.id) as reconciliations
    from ledger_external_txs t`;
  const txProblems: string[] = [];
  const txsById = groupBy(externalTxs, (tx) => tx.externalId);
  for (const [externalId, amount] of expected.syncedTxs) {
    const found = txsById.get(externalId) ?? [];
    const reconciled = expected.reconciledTxs.has(externalId);
    if (found.length !== 1 || !found[0].live) txProblems.push(`${externalId}: ${found.length} rows`);
    else if (found[0].amount !== amount.toString())
      txProblems.push(`${externalId}: amount ${found[0].amount}, sent ${amount}`);
    else if (reconciled && found[0].reconciliations !== 1)
      txProblems.push(`${externalId}: reconciled ${found[0].reconciliations} times, acknowledged once`);
    else if (!reconciled && !expected.openTxs.has(externalId) && found[0].reconciliations !== 0)
      txProblems.push(`${externalId}: reconciled, never acknowledged`);
    else if (expected.refusedKeys.has(`reconcile ${externalId}`) && found[0].reconciliations !== 0)
      txProblems.push(`${externalId}: reconciled, refused`);
  }
  for (const [externalId] of txsById) {
    if (expected.syncedTxs.has(externalId) || expected.unresolvedKeys.has(`ext-tx ${externalId}`)) continue;
    txProblems.push(
      `${externalId}: present, ${expected.refusedKeys.has(`ext-tx ${externalId}`) ? 'refused' : 'never sent'}`,
    );
  }
  checks.push(
    check(
      'bank-feed',
      'every acknowledged bank-feed transaction synced once and reconciled once; no other',
      txProblems,
      `${expected.syncedTxs.size} synced, ${expected.reconciledTxs.size} reconciled`,
    ),
  );

  // ---- Billing: invoices and transactions with their allocations ----
  const invoiceRows = await sql<{ id: string; items: number; amount: string | null; user: string | null }[]>`
    select i.id, count(li.id)::int as items, sum(li.amount)::text as amount, min(u.external_id) as user
    from invoices i
    left join invoice_line_items li on li.workspace_id = i.workspace_id and li.invoice_id = i.id
    left join billing_users u on u.workspace_id = li.workspace_id and u.id = li.user_id
    group by i.workspace_id, i.id`;
  const invoiceProblems: string[] = [];
  const invoicesById = new Map(invoiceRows.map((row) => [row.id, row]));
  for (const [id, invoice] of expected.invoices) {
    const row = invoicesById.get(id);
    if (!row) invoiceProblems.push(`${id}: missing`);
    else if (row.items !== 1 || row.amount !== invoice.amount.toString() || row.user !== invoice.user) {
      invoiceProblems.push(
        `${id}: ${row.items} items of ${row.amount} for ${row.user}, sent 1 of ${invoice.amount} for ${invoice.user}`,
      );
    }
  }
  for (const row of invoiceRows) {
    if (expected.invoices.has(row.id) || expected.unresolvedKeys.has(`invoice ${row.id}`)) continue;
    invoiceProblems.push(
      `${row.id}: present, ${expected.refusedKeys.has(`invoice ${row.id}`) ? 'refused' : 'never sent'}`,
    );
  }
  checks.push(
    check(
      'invoices',
      'every acknowledged invoice present exactly once, as sent; no other',
      invoiceProblems,
      `${expected.invoices.size} acknowledged invoices`,
    ),
  );

  const transactionRows = await sql<
    { externalId: string; account: string; amount: string; allocated: string; allocations: string[] | null }[]
  >`
    select t.external_id as "externalId", a.external_id as account, t.amount::text as amount, t.allocated::text as allocated,
           (select array_agg(al.invoice_id || ' ' || al.amount::text order by al.position) from allocations al
            where al.workspace_id = t.workspace_id and al.transaction_id = t.id) as allocations
    from billing_transactions t join external_accounts a on a.workspace_id = t.workspace_id and a.id = t.account_id`;
  const transactionProblems: string[] = [];
  const transactionsById = groupBy(transactionRows, (row) => row.externalId);
  for (const [externalId, sent] of expected.transactions) {
    const found = transactionsById.get(externalId) ?? [];
    const allocations = sent.allocation ? [`${sent.allocation.invoiceId} ${sent.allocation.amount}`] : [];
    if (found.length !== 1) transactionProblems.push(`${externalId}: ${found.length} rows`);
    else if (
      found[0].account !== sent.account ||
      found[0].amount !== sent.amount.toString() ||
      JSON.stringify(found[0].allocations ?? []) !== JSON.stringify(allocations)
    ) {
      transactionProblems.push(
        `${externalId}: ${JSON.stringify(found[0])}, sent ${sent.account} ${sent.amount} ${JSON.stringify(allocations)}`,
      );
    }
  }
  for (const [externalId] of transactionsById) {
    if (expected.transactions.has(externalId) || expected.unresolvedKeys.has(`transaction ${externalId}`)) continue;
    transactionProblems.push(
      `${externalId}: present, ${expected.refusedKeys.has(`transaction ${externalId}`) ? 'refused' : 'never sent'}`,
    );
  }
  checks.push(
    check(
      'billing-transactions',
      'every acknowledged billing transaction present exactly once, with its allocation; no other',
      transactionProblems,
      `${expected.transactions.size} acknowledged transactions, ${[...expected.transactions.values()].filter((t) => t.allocation).length} paying an invoice`,
    ),
  );

  // ---- Balances ----
  const expectedBalances = new Map<string, bigint>(
    [...ASSETS, ...LIABILITIES, LINKED, INCOME].map((path) => [path, 0n]),
  );
  for (const entry of expected.entries.values()) {
    for (const line of entry.lines) expectedBalances.set(line.path, expectedBalances.get(line.path)! + line.amount);
  }
  const stored = await sql<{ path: string; stored: string | null; lines: string | null; queued: number }[]>`
    select a.path,
           (select sum(b.own_balance)::text from ledger_account_balances b where b.workspace_id = a.workspace_id and b.account_id = a.id) as stored,
           (select sum(l.amount)::text from ledger_lines l where l.workspace_id = a.workspace_id and l.account_id = a.id) as lines,
           (select count(*)::int from ledger_balance_queue q where q.workspace_id = a.workspace_id and q.account_id = a.id) as queued
    from ledger_accounts a where a.ledger_id = ${ledger.id}`;
  const storedByPath = new Map(stored.map((row) => [row.path, row]));
  const balanceProblems: string[] = [];
  const apiProblems: string[] = [];
  for (const [path, amount] of expectedBalances) {
    const row = storedByPath.get(path);
    const want = amount.toString();
    if (!row) balanceProblems.push(`${path}: no account`);
    else if ((row.stored ?? '0') !== want || (row.lines ?? '0') !== want || row.queued !== 0) {
      balanceProblems.push(
        `${path}: stored ${row.stored ?? 0}, lines ${row.lines ?? 0}, ${row.queued} queued; acknowledged ${want}`,
      );
    }
    const read = await readBalance(api, path);
    if (read !== want) apiProblems.push(`${path}: API ownBalance ${read}, acknowledged ${want}`);
  }
  checks.push(
    check(
      'ledger-balances',
      'ledger balances (stored, after the fold drained, and summed from lines) equal the acknowledged writes',
      balanceProblems,
      `${expectedBalances.size} accounts, ${[...expectedBalances.values()].reduce((a, b) => a + b, 0n)} in total`,
    ),
  );
  checks.push(
    check(
      'api-balances',
      'ledger balances read through the API equal the acknowledged writes',
      apiProblems,
      `ownBalance of ${expectedBalances.size} accounts`,
    ),
  );

  const billingSums = await sql<{ account: string; total: string; count: number }[]>`
    select a.external_id as account, sum(t.amount)::text as total, count(*)::int as count
    from billing_transactions t join external_accounts a on a.workspace_id = t.workspace_id and a.id = t.account_id group by a.external_id`;
  const billingProblems: string[] = [];
  for (const account of BILLING_ACCOUNTS) {
    const sent = [...expected.transactions.values()].filter((t) => t.account === account);
    const want = sent.reduce((sum, t) => sum + t.amount, 0n).toString();
    const row = billingSums.find((r) => r.account === account);
    if ((row?.total ?? '0') !== want || (row?.count ?? 0) !== sent.length) {
      billingProblems.push(
        `${account}: ${row?.count ?? 0} transactions summing to ${row?.total ?? 0}; acknowledged ${sent.length} summing to ${want}`,
      );
    }
  }
  const paid = new Map<string, bigint>();
  for (const t of expected.transactions.values())
    if (t.allocation) paid.set(t.allocation.invoiceId, (paid.get(t.allocation.invoiceId) ?? 0n) + t.allocation.amount);
  const invoiceIds = [...expected.invoices.keys()];
  for (let i = 0; i < invoiceIds.length; i += 8) {
    await Promise.all(
      invoiceIds.slice(i, i + 8).map(async (id) => {
        const response = await readRetrying(`${api.baseUrl}/billing/invoices/${encodeURIComponent(id)}`, api.token);
        const body = (await response.json()) as {
          data?: { balances?: { currency: string; payins: { actual: string; expected: string } }[] };
        };
        const usd = body.data?.balances?.find((b) => b.currency === 'USD');
        const want = {
          actual: (paid.get(id) ?? 0n).toString(),
          expected: expected.invoices.get(id)!.amount.toString(),
        };
        if (response.status !== 200 || usd?.payins.actual !== want.actual || usd?.payins.expected !== want.expected) {
          billingProblems.push(
            `${id}: ${response.status} payins ${JSON.stringify(usd?.payins)}, acknowledged ${JSON.stringify(want)}`,
          );
        }
      }),
    );
  }
  checks.push(
    check(
      'billing-balances',
      'billing balances equal the acknowledged writes (per external account in the database, per invoice through the API)',
      billingProblems,
      `${BILLING_ACCOUNTS.length} external accounts, ${invoiceIds.length} invoices (${paid.size} paid)`,
    ),
  );

  // ---- The invariant checker, as `make admin ARGS=check` runs it ----
  const violations = await checkLedgerInvariants(sql);
  let adminCheckOutput: string;
  let adminOk: boolean;
  try {
    const { stdout } = await admin({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, 'check');
    adminCheckOutput = stdout.trim();
    adminOk = stdout.includes('ok: every invariant holds');
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    adminCheckOutput = `exit ${failed.code}: ${(failed.stdout ?? '').trim()} ${(failed.stderr ?? '').trim()}`.trim();
    adminOk = false;
  }
  checks.push(
    check(
      'invariants',
      'invariant checker clean (make admin ARGS=check)',
      [
        ...violations.map((v) => `${v.check}: ledger ${v.ledgerId}, ${v.subject}: ${v.detail}`),
        ...(adminOk ? [] : [`admin check: ${adminCheckOutput}`]),
      ],
      adminCheckOutput,
    ),
  );

  return {
    checks,
    adminCheckOutput,
    counts: {
      entriesInLedger: rows.length,
      unresolvedPresent,
      externalTxs: externalTxs.length,
      invoices: invoiceRows.length,
      billingTransactions: transactionRows.length,
    },
  };
}

const BALANCE = `query crashBalance($path: String!) { ledgerAccount(ledgerAccount: { ledger: { ik: "${LEDGER_IK}" }, path: $path }) { ownBalance } }`;

async function readBalance(api: Api, path: string): Promise<string> {
  const response = await fetch(`${api.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: BALANCE, variables: { path } }),
  });
  const body = (await response.json()) as { data?: { ledgerAccount?: { ownBalance: string } }; errors?: unknown[] };
  return body.data?.ledgerAccount?.ownBalance ?? `error ${JSON.stringify(body.errors)}`;
}

/** A read as a client makes it: a retryable 503 (a busy machine's connect timeout) is sent again, a few times. */
async function readRetrying(url: string, token: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 503 || attempt === 3) return response;
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
}
