import { seeded } from '../fuzz/random.js';

// The clients of the crash suite: each one a seeded sequence of writes (single entries, batches,
// reconciliations, invoices and billing transactions), every write sent again with the same
// idempotency key and the same body until its answer is definite (success, or a typed refusal
// that says not to retry), or until the run's deadline.

export const LEDGER_IK = 'crash';
/** Asset accounts 0 and 1 are strong, 2 and 3 eventual (folded in the background); liabilities alike. */
export const ASSETS = ['cash-0', 'cash-1', 'cash-2', 'cash-3'];
export const LIABILITIES = ['deposits-0', 'deposits-1', 'deposits-2', 'deposits-3'];
/** The ledger account linked to the external account that reconciliations name, and its income side. */
export const LINKED = 'bank';
export const INCOME = 'sales';
export const LINK_IK = 'crash-bank';
export const EXTERNAL_ACCOUNT = 'ops';
export const BILLING_ACCOUNTS = ['operating-0', 'operating-1', 'operating-2'];
export const PRODUCT = 'crash-goods';

export type Api = { baseUrl: string; token: string };
export type Line = { path: string; amount: bigint };
export type EntryWrite = { ik: string; lines: Line[] };
export type Allocation = { invoiceId: string; user: string; amount: bigint };

export type Op =
  | { kind: 'entry'; entry: EntryWrite }
  | { kind: 'batch'; entries: EntryWrite[] }
  | { kind: 'reconcile'; txExternalId: string; amount: bigint; posted: string }
  | { kind: 'invoice'; invoiceId: string; user: string; amount: bigint }
  | {
      kind: 'transaction';
      externalId: string;
      account: string;
      amount: bigint;
      posted: string;
      allocation?: Allocation;
    };
export type Kind = Op['kind'];
export const KINDS: readonly Kind[] = ['entry', 'batch', 'reconcile', 'invoice', 'transaction'];

export type Status = 'acknowledged' | 'refused' | 'unresolved';
export type OpRecord = {
  client: number;
  op: Op;
  status: Status;
  /** Requests sent for this write (both steps of a reconciliation). */
  attempts: number;
  /** The definite answer was a replay (the server had the write already: an earlier attempt's answer was lost). */
  replayed: boolean;
  refusal?: string;
  /** Reconciliations: the synced transaction's outcome and id, and the entry's derived ik. */
  sync?: { status: Status; txId?: string };
  entryIk?: string;
};

export type ClientStats = { retries: Record<string, number>; samples?: Record<string, string> };

const WEIGHTS: [Kind, number][] = [
  ['entry', 30],
  ['batch', 20],
  ['reconcile', 15],
  ['invoice', 15],
  ['transaction', 20],
];
const BASE_TIME = Date.UTC(2026, 5, 1);

/** The writes of one client, in order; the same seed and client give the same sequence. */
export function opSequence(seed: number, client: number) {
  const random = seeded((seed ^ Math.imul(client + 1, 0x9e3779b1)) >>> 0);
  const total = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
  const amount = () => BigInt(random.int(1, 100_000));
  const lines = (): Line[] => {
    const value = amount();
    return [
      { path: random.pick(ASSETS), amount: value },
      { path: random.pick(LIABILITIES), amount: value },
    ];
  };
  let n = 0;
  /** The client's latest invoice, acknowledged and not yet paid: the next transaction may pay it. */
  let payable: Allocation | undefined;
  return {
    next(): Op {
      n++;
      const key = `c${client}-${n}`;
      const posted = new Date(BASE_TIME + (client * 1_000_000 + n) * 1000).toISOString();
      let roll = random.int(1, total);
      const kind = WEIGHTS.find(([, weight]) => (roll -= weight) <= 0)![0];
      switch (kind) {
        case 'entry':
          return { kind, entry: { ik: `e-${key}`, lines: lines() } };
        case 'batch':
          return {
            kind,
            entries: Array.from({ length: random.int(2, 3) }, (_, i) => ({ ik: `b-${key}-${i}`, lines: lines() })),
          };
        case 'reconcile':
          return { kind, txExternalId: `r-${key}`, amount: amount(), posted };
        case 'invoice':
          return { kind, invoiceId: `inv-${key}`, user: `customer-${client}`, amount: amount() };
        case 'transaction': {
          const pay = random.chance(0.7) ? payable : undefined;
          const extra = BigInt(random.int(0, 100));
          const account = random.pick(BILLING_ACCOUNTS);
          if (pay) payable = undefined;
          return {
            kind,
            externalId: `tx-${key}`,
            account,
            amount: (pay?.amount ?? amount()) + extra,
            posted,
            allocation: pay,
          };
        }
      }
    },
    /** Called with each finished write, so a transaction only pays an invoice the server acknowledged. */
    settled(record: OpRecord) {
      if (record.op.kind === 'invoice' && record.status === 'acknowledged') {
        payable = { invoiceId: record.op.invoiceId, user: record.op.user, amount: record.op.amount };
      }
    },
  };
}

// ---- Answers -------------------------------------------------------------------------------

type Answer =
  | { type: 'ok'; data: any; replayed: boolean }
  | { type: 'retry'; reason: string; body?: string }
  | { type: 'refused'; reason: string };

type Reply = { status: number; body: any; raw: string } | { transport: string };

const REQUEST_TIMEOUT_MS = 20_000;

async function send(url: string, init: RequestInit): Promise<Reply> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body, raw: text.slice(0, 300) };
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    return { transport: cause?.code ?? (error as Error).name ?? 'error' };
  }
}

const graphql = (api: Api, query: string, variables: Record<string, unknown>) =>
  send(`${api.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });

const rest = (api: Api, path: string, body: unknown) =>
  send(`${api.baseUrl}/billing${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** A mutation's answer: its result type is success; InternalError, 5xx and `retryable` are sent again. */
function graphqlAnswer(reply: Reply, field: string): Answer {
  if ('transport' in reply) return { type: 'retry', reason: `transport ${reply.transport}` };
  const result = reply.body?.data?.[field];
  if (!result) {
    const extensions = reply.body?.errors?.[0]?.extensions ?? {};
    // A body without `errors` (the 503 a starting server answers on every path) is named as such.
    const code = extensions.code ?? (reply.body?.code ? `${reply.body.code} (REST-shaped body)` : 'no-code');
    const reason = `graphql ${reply.status} ${code}`;
    const body = reply.raw;
    return reply.status >= 500 || extensions.retryable === true || reply.status === 429
      ? { type: 'retry', reason, body }
      : { type: 'refused', reason: `${reason}: ${body}` };
  }
  const reason = `${result.__typename} ${result.code ?? ''}`.trim();
  if (String(result.__typename).endsWith('Result')) return { type: 'ok', data: result, replayed: replayOf(result) };
  if (result.__typename === 'InternalError' || result.retryable === true)
    return { type: 'retry', reason, body: reply.raw };
  return {
    type: 'refused',
    reason: `${reason}${result.errors ? ` ${JSON.stringify(result.errors)}` : ''}: ${result.message ?? ''}`,
  };
}

function replayOf(result: any): boolean {
  if (typeof result.isIkReplay === 'boolean') return result.isIkReplay;
  if (Array.isArray(result.results)) return result.results.some((r: any) => r.isIkReplay);
  return false;
}

/** A billing create: 201 written, 200 a replay of what is stored; 5xx, 429 and `retryable` are sent again. */
function restAnswer(reply: Reply): Answer {
  if ('transport' in reply) return { type: 'retry', reason: `transport ${reply.transport}` };
  if (reply.status === 201 || reply.status === 200)
    return { type: 'ok', data: reply.body?.data, replayed: reply.status === 200 };
  const reason = `${reply.status} ${reply.body?.code ?? 'no-code'}`;
  if (reply.status >= 500 || reply.status === 429 || reply.body?.retryable === true)
    return { type: 'retry', reason, body: reply.raw };
  return { type: 'refused', reason: `${reason}: ${reply.body?.message ?? ''}` };
}

// ---- Documents and bodies ------------------------------------------------------------------

const ERROR_FIELDS =
  '... on Error { code message } ... on InternalError { retryable } ... on BadRequestError { retryable }';
const ADD_ENTRY = `mutation crashEntry($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) {
  __typename ... on AddLedgerEntryResult { isIkReplay entry { id ik } } ${ERROR_FIELDS} } }`;
const ADD_ENTRIES = `mutation crashBatch($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) {
  __typename ... on AddLedgerEntriesResult { results { isIkReplay entry { id ik } } }
  ... on AddLedgerEntriesError { retryable errors { ik code } } ${ERROR_FIELDS} } }`;
const SYNC_TXS = `mutation crashSync($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) {
  __typename ... on SyncCustomTxsResult { txs { id externalId } } ${ERROR_FIELDS} } }`;
const RECONCILE = `mutation crashReconcile($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) {
  __typename ... on ReconcileTxResult { isIkReplay entry { id ik } } ${ERROR_FIELDS} } }`;

const entryInput = (lines: Line[]) => ({
  ledger: { ik: LEDGER_IK },
  lines: lines.map((line) => ({ account: { path: line.path }, amount: line.amount.toString() })),
});

export const invoiceBody = (op: Extract<Op, { kind: 'invoice' }>) => ({
  invoice_id: op.invoiceId,
  line_items: [
    {
      description: 'Crash goods',
      product_id: PRODUCT,
      type: 'payin',
      user: { external_id: op.user },
      price: { amount: op.amount.toString() },
    },
  ],
});

export const transactionBody = (op: Extract<Op, { kind: 'transaction' }>) => ({
  external_id: op.externalId,
  account: { external_id: op.account },
  amount: op.amount.toString(),
  currency: 'USD',
  posted: op.posted,
  allocations: op.allocation
    ? [
        {
          amount: op.allocation.amount.toString(),
          invoice_id: op.allocation.invoiceId,
          type: 'invoice_payin',
          user: { external_id: op.allocation.user },
        },
      ]
    : [],
});

// ---- One client ----------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type ClientOptions = {
  api: Api;
  client: number;
  seed: number;
  linkId: string;
  externalAccountId: string;
  /** New writes start while this holds (the chaos phase); a write under way is finished. */
  startMore: () => boolean;
  /** After this time a write still without a definite answer is recorded as unresolved. */
  deadline: number;
  stats: ClientStats;
};

/** Runs one client to the end of the chaos phase; every write it started, with its outcome. */
export async function runClient(options: ClientOptions): Promise<OpRecord[]> {
  const sequence = opSequence(options.seed, options.client);
  const records: OpRecord[] = [];
  while (options.startMore()) {
    const record = await perform(options, sequence.next());
    sequence.settled(record);
    records.push(record);
  }
  return records;
}

async function perform(options: ClientOptions, op: Op): Promise<OpRecord> {
  const { api, client } = options;
  let attempts = 0;
  /** The same request until a definite answer; bounded by the deadline. */
  const untilDefinite = async (request: () => Promise<Answer>): Promise<Answer | undefined> => {
    for (let attempt = 1; ; attempt++) {
      attempts++;
      const answer = await request();
      if (answer.type !== 'retry') return answer;
      options.stats.retries[answer.reason] = (options.stats.retries[answer.reason] ?? 0) + 1;
      if (answer.body !== undefined) (options.stats.samples ??= {})[answer.reason] ??= answer.body;
      if (Date.now() >= options.deadline) return undefined;
      await sleep(Math.min(1000, 25 * 2 ** Math.min(attempt, 6)));
    }
  };
  const outcome = (answer: Answer | undefined, extra: Partial<OpRecord> = {}): OpRecord => ({
    client,
    op,
    attempts,
    status: answer === undefined ? 'unresolved' : answer.type === 'ok' ? 'acknowledged' : 'refused',
    replayed: answer?.type === 'ok' && answer.replayed,
    refusal: answer?.type === 'refused' ? answer.reason : undefined,
    ...extra,
  });

  switch (op.kind) {
    case 'entry': {
      const variables = { ik: op.entry.ik, entry: entryInput(op.entry.lines) };
      return outcome(
        await untilDefinite(async () => graphqlAnswer(await graphql(api, ADD_ENTRY, variables), 'addLedgerEntry')),
      );
    }
    case 'batch': {
      const variables = { entries: op.entries.map((entry) => ({ ik: entry.ik, entry: entryInput(entry.lines) })) };
      return outcome(
        await untilDefinite(async () => graphqlAnswer(await graphql(api, ADD_ENTRIES, variables), 'addLedgerEntries')),
      );
    }
    case 'reconcile': {
      const txs = [
        {
          externalId: op.txExternalId,
          account: { id: options.externalAccountId },
          amount: op.amount.toString(),
          description: 'crash feed',
          posted: op.posted,
        },
      ];
      const synced = await untilDefinite(async () =>
        graphqlAnswer(await graphql(api, SYNC_TXS, { link: options.linkId, txs }), 'syncCustomTxs'),
      );
      if (synced?.type !== 'ok') return outcome(synced, { sync: { status: outcome(synced).status } });
      const txId: string = synced.data.txs[0].id;
      const entry = {
        ledger: { ik: LEDGER_IK },
        lines: [
          { account: { path: LINKED }, amount: op.amount.toString(), tx: { id: txId } },
          { account: { path: INCOME }, amount: op.amount.toString() },
        ],
      };
      const reconciled = await untilDefinite(async () =>
        graphqlAnswer(await graphql(api, RECONCILE, { entry }), 'reconcileTx'),
      );
      return outcome(reconciled, {
        sync: { status: 'acknowledged', txId },
        entryIk: reconciled?.type === 'ok' ? reconciled.data.entry.ik : undefined,
      });
    }
    case 'invoice': {
      const body = invoiceBody(op);
      return outcome(await untilDefinite(async () => restAnswer(await rest(api, '/invoices', body))));
    }
    case 'transaction': {
      const body = transactionBody(op);
      return outcome(await untilDefinite(async () => restAnswer(await rest(api, '/transactions', body))));
    }
  }
}

/** The ledger lines a record's write puts in the books (reconciliations included). */
export function entriesOf(record: OpRecord): EntryWrite[] {
  const { op } = record;
  if (op.kind === 'entry') return [op.entry];
  if (op.kind === 'batch') return op.entries;
  if (op.kind === 'reconcile' && record.entryIk) {
    return [
      {
        ik: record.entryIk,
        lines: [
          { path: LINKED, amount: op.amount },
          { path: INCOME, amount: op.amount },
        ],
      },
    ];
  }
  return [];
}
