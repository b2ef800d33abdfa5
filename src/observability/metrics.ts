import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { balanceQueueState, type QueueState } from '../db/balanceFold.js';
import type { Sql } from '../db/sql.js';

// Prometheus metrics of this process (prom-client): requests by operation and status with a
// latency histogram, GraphQL operations by name, ledger postings, the pool and the fold's backlog.
// One registry per process; features count here, http/requestMetrics.ts serves it.

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'tally_' });

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const requests = new Counter({
  name: 'tally_http_requests_total',
  help: 'HTTP requests answered, by operation, method and status.',
  labelNames: ['operation', 'method', 'status'] as const,
  registers: [registry],
});
export const requestDuration = new Histogram({
  name: 'tally_http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by operation.',
  labelNames: ['operation'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
const graphqlOperations = new Counter({
  name: 'tally_graphql_operations_total',
  help: 'GraphQL operations executed, by operation name and type.',
  labelNames: ['operation_name', 'operation_type'] as const,
  registers: [registry],
});
export const entriesPosted = new Counter({
  name: 'tally_ledger_entries_posted_total',
  help: 'Ledger entries written (replays and refusals excluded).',
  registers: [registry],
});
export const postingDuration = new Histogram({
  name: 'tally_ledger_posting_duration_seconds',
  help: 'Time of the posting transaction of one entry-writing mutation (addLedgerEntry, addLedgerEntries, reconcileTx, reverseLedgerEntry, migrateLedgerEntry), refused and failed ones included.',
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const postingGroupsWritten = new Counter({
  name: 'tally_ledger_posting_groups_total',
  help: 'Groups of entries posted together by one statement and one commit (group commit), groups of one included.',
  registers: [registry],
});
export const postingGroupsRetried = new Counter({
  name: 'tally_ledger_posting_groups_retried_total',
  help: 'Groups whose statement failed as a whole (a balance out of range, a deadlock, a stale posting target) and were posted again entry by entry.',
  registers: [registry],
});
export const stalePostings = new Counter({
  name: 'tally_ledger_stale_postings_total',
  help: 'Entry-writing mutations refused because their ledger or one of its accounts changed after this process read them, then run again from a fresh lookup.',
  registers: [registry],
});
export const groupedEntries = new Counter({
  name: 'tally_ledger_grouped_entries_total',
  help: 'Entries posted through group commit; divided by tally_ledger_posting_groups_total, the mean group size.',
  registers: [registry],
});

export const billingWriteGroups = new Counter({
  name: 'tally_billing_write_groups_total',
  help: 'Groups of billing writes (transaction syncs, invoice creates) written by one statement and one commit, by operation; groups of one included.',
  labelNames: ['operation'] as const,
  registers: [registry],
});
export const billingWriteGroupsRetried = new Counter({
  name: 'tally_billing_write_groups_retried_total',
  help: 'Groups of billing writes whose statement failed as a whole and were written again one by one, by operation.',
  labelNames: ['operation'] as const,
  registers: [registry],
});
export const billingGroupedWrites = new Counter({
  name: 'tally_billing_grouped_writes_total',
  help: 'Billing writes through group commit, by operation; divided by tally_billing_write_groups_total, the mean group size.',
  labelNames: ['operation'] as const,
  registers: [registry],
});

export const balanceFoldRows = new Counter({
  name: 'tally_balance_fold_rows_total',
  help: 'Queued balance deltas (eventual updates) folded into balances and history by this process.',
  registers: [registry],
});

// Operation names come from clients: only well-formed ones, and only so many, become labels.
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_NAMES = 200;
const seenNames = new Set<string>();

export function graphqlOperationName(name: string | null | undefined): string {
  if (!name) return 'anonymous';
  if (!NAME.test(name)) return 'other';
  if (!seenNames.has(name) && seenNames.size >= MAX_NAMES) return 'other';
  seenNames.add(name);
  return name;
}

export function countGraphqlOperation(name: string, type: string): void {
  graphqlOperations.inc({ operation_name: name, operation_type: type });
}

let poolSql: Sql | undefined;
let poolMax = 0;

// Pool use as PostgreSQL sees it: this application's connections to its own database by state,
// read at scrape time (other Tally processes on the same database count too).
new Gauge({
  name: 'tally_db_connections',
  help: "Database connections of Tally (application_name 'tally') to its database by state, and the pool's maximum (state=\"max\").",
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    this.set({ state: 'max' }, poolMax);
    if (!poolSql) return;
    const rows = await poolSql<{ state: string | null; count: number }[]>`
      /* metricsConnections */
      select coalesce(state, 'unknown') as state, count(*)::int as count from pg_stat_activity
      where application_name = 'tally' and datname = current_database() and pid <> pg_backend_pid()
      group by 1`;
    for (const row of rows) this.set({ state: row.state ?? 'unknown' }, row.count);
  },
});

// The fold's backlog as the database holds it, whichever process will fold it. Both gauges come
// from one query per scrape: the first to collect starts it, the second reuses it.
let queueScrape: { at: number; state: Promise<QueueState> } | undefined;
function scrapedQueueState(): Promise<QueueState> {
  if (!poolSql) return Promise.resolve({ pending: 0, lagSeconds: 0 });
  if (!queueScrape || Date.now() - queueScrape.at > 1000)
    queueScrape = { at: Date.now(), state: balanceQueueState(poolSql) };
  return queueScrape.state;
}
new Gauge({
  name: 'tally_balance_fold_lag_seconds',
  help: 'Age of the oldest balance delta waiting for the fold (0 when none waits).',
  registers: [registry],
  async collect() {
    this.set((await scrapedQueueState()).lagSeconds);
  },
});
new Gauge({
  name: 'tally_balance_fold_pending',
  help: 'Balance deltas waiting for the fold.',
  registers: [registry],
  async collect() {
    this.set((await scrapedQueueState()).pending);
  },
});

/** Which database the connection gauge reads, and the pool size it reports. */
export function watchPool(sql: Sql, max: number): void {
  poolSql = sql;
  poolMax = max;
}
