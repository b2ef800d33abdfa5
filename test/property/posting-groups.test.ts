import fc from 'fast-check';
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createPlannedAccounts, type NewLedgerAccount } from '../../src/db/ledgerAccounts.js';
import {
  postLedgerEntries,
  postLedgerEntry,
  type EntryPosting,
  type PlannedAccountOf,
  type PostingOutcome,
} from '../../src/db/ledgerEntries.js';
import { useTestDatabase } from '../support/database.js';
import { entryPosting, postingLine } from '../support/postings.js';

// The oracle of group commit: a random sequence of postings (conditions that hold and fail,
// replays, ik clashes, reposts after a reversal, strong, eventual and bounded accounts, template
// instances that several entries plan) is written to one ledger in groups
// (post_ledger_entry_group) and to a twin ledger entry by entry (each in a transaction that
// creates its planned accounts, then post_ledger_entry_checked), in the same order. The groups
// carry what the server states (revision, offset, strong lines), as the server sends them. Every answer,
// every account and every balance must match, and each ledger's balances must equal the sum of
// its lines.

const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
const ACCOUNTS = [
  { path: 's1', consistency: 'strong' },
  { path: 's2', consistency: 'strong' },
  { path: 'e1', consistency: 'eventual' },
  { path: 'e2', consistency: 'eventual' },
  // Template instances: not in the ledger until an entry that names them is written.
  { path: 'n1', consistency: 'strong' },
  { path: 'n2', consistency: 'eventual' },
] as const;
const EXISTING = 4;

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
  await sql`insert into workspaces (id, name) values ('w', 'w')`;
});

type Bound = { gte?: string; lte?: string };
type Posting = {
  ik: string;
  /** Two lines: +amount on `from`, −amount on `to` (their balances move apart). */
  from: number;
  to: number;
  amount: number;
  condition?: { account: number; precondition?: Bound; postcondition?: Bound };
};

const bound = fc.record(
  { gte: fc.integer({ min: -6, max: 6 }), lte: fc.integer({ min: -6, max: 6 }) },
  { requiredKeys: [] },
);
const asBound = (b: { gte?: number; lte?: number }): Bound => ({
  ...(b.gte !== undefined ? { gte: String(b.gte) } : {}),
  ...(b.lte !== undefined ? { lte: String(b.lte) } : {}),
});
const posting: fc.Arbitrary<Posting> = fc
  .record({
    ik: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
    from: fc.nat({ max: ACCOUNTS.length - 1 }),
    shift: fc.integer({ min: 1, max: ACCOUNTS.length - 1 }),
    amount: fc.integer({ min: 1, max: 3 }),
    condition: fc.option(
      fc.record({ account: fc.nat({ max: ACCOUNTS.length - 1 }), pre: fc.option(bound), post: fc.option(bound) }),
    ),
  })
  .map(({ ik, from, shift, amount, condition }) => ({
    ik,
    from,
    to: (from + shift) % ACCOUNTS.length,
    amount,
    condition:
      condition === null
        ? undefined
        : {
            account: condition.account,
            ...(condition.pre ? { precondition: asBound(condition.pre) } : {}),
            ...(condition.post ? { postcondition: asBound(condition.post) } : {}),
          },
  }));

let ledgers = 0;
async function newLedger(): Promise<{ id: string; accountIds: string[] }> {
  const id = `l${++ledgers}`;
  await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', ${id}, ${id}, ${id}, 'h')`;
  const accountIds = ACCOUNTS.map((account) => `${id}-${account.path}`);
  for (const [index, account] of ACCOUNTS.slice(0, EXISTING).entries()) {
    await sql`
      insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
      values ('w', ${id}, ${accountIds[index]}, ${account.path}, ${account.path}, 1, 'asset', 'single', 'USD',
              ${sql.json({ ownBalanceUpdates: account.consistency })}, 'h')`;
  }
  return { id, accountIds };
}

/** A posting's own id for a template instance it plans (each entry plans its own, as the server does). */
const accountIdIn = (ledger: { id: string; accountIds: string[] }, account: number, ordinal: number) =>
  account < EXISTING ? ledger.accountIds[account] : `${ledger.id}-p${ordinal}-${ACCOUNTS[account].path}`;

/** The template instances a posting names, planned with its own ids. */
function plannedBy(ledger: { id: string }, item: Posting, ordinal: number): NewLedgerAccount[] {
  const consistency = (account: number) => ({
    ownBalanceUpdates: ACCOUNTS[account].consistency,
    lines: 'eventual' as const,
    groups: [],
  });
  const named = new Set([item.from, item.to, ...(item.condition ? [item.condition.account] : [])]);
  return [...named]
    .filter((account) => account >= EXISTING)
    .map((account) => ({
      workspaceId: 'w',
      ledgerId: ledger.id,
      id: `${ledger.id}-p${ordinal}-${ACCOUNTS[account].path}`,
      ik: ACCOUNTS[account].path,
      path: ACCOUNTS[account].path,
      parentId: null,
      depth: 1,
      name: null,
      type: 'asset',
      currencyMode: 'single',
      currencyCode: 'USD',
      consistency: consistency(account),
      linkedAccountId: null,
      requestHash: 'schema',
    }));
}

/**
 * The posting as the server states it to the group statement: the ledger revision it was prepared
 * from, the ledger's offset and each line's strong account, which the statement then trusts.
 */
function statedAsPrepared(posting: EntryPosting, revision: string): EntryPosting {
  const strongAt = (accountId: string) => {
    const account = ACCOUNTS.find(({ path }) => accountId.endsWith(`-${path}`));
    return account!.consistency !== 'eventual';
  };
  return {
    ...posting,
    ledgerRevision: revision,
    ledgerUtcOffset: '+00:00',
    lines: posting.lines.map((line) => ({ ...line, ownBalanceStrong: strongAt(line.accountId) })),
  };
}

function toPosting(ledger: { id: string; accountIds: string[] }, item: Posting, ordinal: number): EntryPosting {
  const line = (account: number, amount: string, position: number) =>
    postingLine(`${ledger.id}-line-${ordinal}-${position}`, accountIdIn(ledger, account, ordinal), amount);
  return entryPosting({
    workspaceId: 'w',
    ledgerId: ledger.id,
    entryId: `${ledger.id}-ent-${ordinal}`,
    ik: item.ik,
    // The same ik with another amount is a clash: the server refuses it by this hash.
    requestHash: `${item.from}-${item.to}-${item.amount}-${JSON.stringify(item.condition ?? null)}`,
    posted: '2026-11-25T12:00:00Z',
    conditions: item.condition
      ? [
          {
            index: 0,
            accountId: accountIdIn(ledger, item.condition.account, ordinal),
            currency: 'USD',
            ...(item.condition.precondition ? { precondition: item.condition.precondition } : {}),
            ...(item.condition.postcondition ? { postcondition: item.condition.postcondition } : {}),
          },
        ]
      : [],
    lines: [line(item.from, String(item.amount), 1), line(item.to, String(-item.amount), 2)],
  });
}

/**
 * An outcome with the ledger's ids replaced by the ordinal of the posting that wrote the entry.
 * `remapped` is left out: which plan of a shared template instance wins differs between the two
 * ways (checked apart against the lines written).
 */
function comparable(outcome: PostingOutcome, ledgerId: string) {
  if ('failedCondition' in outcome) return outcome;
  const { created: _created, entryId, remapped: _remapped, ...rest } = outcome;
  return { ...rest, entry: entryId.slice(`${ledgerId}-ent-`.length) };
}

type Planned = { posting: EntryPosting; accounts: NewLedgerAccount[] };

/** Consecutive runs of postings, a new run wherever an ik would repeat (the server's grouping rule). */
function groupsOf(postings: readonly Planned[]): Planned[][] {
  const groups: Planned[][] = [];
  let iks = new Set<string>();
  for (const item of postings) {
    if (groups.length === 0 || iks.has(item.posting.ik)) {
      groups.push([]);
      iks = new Set();
    }
    groups.at(-1)!.push(item);
    iks.add(item.posting.ik);
  }
  return groups;
}

class Withdrawn extends Error {
  constructor(readonly outcome: PostingOutcome) {
    super('withdrawn');
  }
}

/** One entry alone, as the server posts one that creates accounts: refused or replayed, its accounts are rolled back. */
async function postAloneCreating({ posting, accounts }: Planned): Promise<PostingOutcome> {
  if (accounts.length === 0) return postLedgerEntry(sql, posting);
  try {
    return await sql.begin(async (trx) => {
      const idOf = await createPlannedAccounts(trx, accounts);
      const remap = (id: string) => idOf.get(id) ?? id;
      const outcome = await postLedgerEntry(trx, {
        ...posting,
        lines: posting.lines.map((line) => ({ ...line, accountId: remap(line.accountId) })),
        conditions: posting.conditions.map((condition) => ({ ...condition, accountId: remap(condition.accountId) })),
      });
      if ('failedCondition' in outcome || outcome.replayed) throw new Withdrawn(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof Withdrawn) return error.outcome;
    throw error;
  }
}

/** Checks a group's `remapped` answers against what was written: remapped exactly when a line or condition names another id than planned. */
async function checkRemapped(group: readonly Planned[], outcomes: readonly PostingOutcome[]) {
  for (const [index, outcome] of outcomes.entries()) {
    if ('failedCondition' in outcome || outcome.replayed) continue;
    const { posting } = group[index];
    const [written] = await sql<{ lineAccounts: string[]; conditions: { accountId: string }[] }[]>`
      select array(select account_id from ledger_lines l where l.workspace_id = 'w' and l.entry_id = e.id order by position)
               as "lineAccounts", e.conditions
      from ledger_entries e where e.workspace_id = 'w' and e.id = ${posting.entryId}`;
    const named = [...written.lineAccounts, ...written.conditions.map((condition) => condition.accountId)];
    const planned = [...posting.lines, ...posting.conditions].map((item) => item.accountId);
    expect(outcome.remapped ?? false).toBe(named.some((id, position) => id !== planned[position]));
  }
}

/** Own balances by account path, queued deltas included; and whether each equals the sum of its lines. */
async function balancesOf(ledgerId: string) {
  const rows = await sql<{ path: string; balance: string; lines: string }[]>`
    select a.path,
           (coalesce(b.own_balance, 0) + coalesce((select sum(q.amount) from ledger_balance_queue q
             where q.workspace_id = a.workspace_id and q.account_id = a.id and not q.balance_applied), 0))::text as balance,
           (select coalesce(sum(l.amount), 0) from ledger_lines l where l.workspace_id = a.workspace_id and l.account_id = a.id)::text as lines
    from ledger_accounts a left join ledger_account_balances b on b.workspace_id = a.workspace_id and b.account_id = a.id
    where a.workspace_id = 'w' and a.ledger_id = ${ledgerId} order by a.path`;
  return rows;
}

/** Reverses the newest entry of an ik the way reverse_ledger_entry does, so that the ik may be posted again. */
async function reverse(ledgerId: string, ik: string) {
  const [entry] = await sql<{ id: string }[]>`
    select id from ledger_entries where workspace_id = 'w' and ledger_id = ${ledgerId} and ik = ${ik}
    order by reversal_position desc limit 1`;
  if (entry)
    await sql`select * from reverse_ledger_entry('w', ${entry.id}, ${`${entry.id}-rev`}, array[${`${entry.id}-rev-1`}, ${`${entry.id}-rev-2`}])`;
}

describe('group commit', () => {
  it('answers every posting and leaves every balance as posting each alone in the same order would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(posting, { minLength: 1, maxLength: 14 }),
        fc.option(fc.constantFrom('a', 'b', 'c')),
        async (items, reversedIk) => {
          const grouped = await newLedger();
          const alone = await newLedger();
          // Opening balances, so conditions both hold and fail.
          const opening: Posting[] = [
            { ik: 'open-1', from: 0, to: 2, amount: 3 },
            { ik: 'open-2', from: 3, to: 1, amount: 2 },
          ];
          const first = items.slice(0, Math.ceil(items.length / 2));
          const rest = items.slice(first.length);
          const run = async (ledger: typeof grouped, post: (postings: Planned[]) => Promise<PostingOutcome[]>) => {
            const all = [...opening, ...first, ...rest];
            const postings = all.map((item, ordinal) => ({
              posting: toPosting(ledger, item, ordinal),
              accounts: plannedBy(ledger, item, ordinal),
            }));
            const outcomes = await post(postings.slice(0, opening.length + first.length));
            // A reversal ends an ik's chain: a later posting with that ik is a repost, not a replay.
            if (reversedIk) await reverse(ledger.id, reversedIk);
            outcomes.push(...(await post(postings.slice(opening.length + first.length))));
            return outcomes.map((outcome) => comparable(outcome, ledger.id));
          };
          const [{ revision }] = await sql<{ revision: string }[]>`
            select posting_revision::text as revision from ledgers where id = ${grouped.id}`;
          const groupedOutcomes = await run(grouped, async (postings) => {
            const outcomes: PostingOutcome[] = [];
            for (const group of groupsOf(postings)) {
              const planned: PlannedAccountOf[] = group.flatMap((item, index) =>
                item.accounts.map((account) => ({ ordinal: index + 1, account })),
              );
              const answers = await postLedgerEntries(
                sql,
                group.map((item) => statedAsPrepared(item.posting, revision)),
                planned,
              );
              await checkRemapped(group, answers);
              outcomes.push(...answers);
            }
            return outcomes;
          });
          const aloneOutcomes = await run(alone, async (postings) => {
            const outcomes: PostingOutcome[] = [];
            for (const item of postings) outcomes.push(await postAloneCreating(item));
            return outcomes;
          });
          expect(groupedOutcomes).toEqual(aloneOutcomes);
          const groupedBalances = await balancesOf(grouped.id);
          expect(groupedBalances).toEqual(await balancesOf(alone.id));
          for (const row of groupedBalances) expect(row.balance).toBe(row.lines);
          // A refused entry leaves nothing behind, nor does a bound on a pair no line moved: no empty balance rows.
          const [{ empty }] = await sql<{ empty: number }[]>`
            select count(*)::int as empty from ledger_account_balances b
            join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
            where a.ledger_id in (${grouped.id}, ${alone.id}) and b.line_count = 0`;
          expect(empty).toBe(0);
          // Lines carry no foreign keys: each must name an entry and an account that exist.
          const [{ orphans }] = await sql<{ orphans: number }[]>`
            select count(*)::int as orphans from ledger_lines l
            where l.ledger_id in (${grouped.id}, ${alone.id})
              and (not exists (select 1 from ledger_entries e where e.workspace_id = l.workspace_id and e.id = l.entry_id)
                   or not exists (select 1 from ledger_accounts a where a.workspace_id = l.workspace_id and a.id = l.account_id))`;
          expect(orphans).toBe(0);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
