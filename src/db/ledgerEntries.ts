import { ledgerLocalHour } from '../core/calendar.js';
import type { EntryParameters } from '../core/entryTypes.js';
import { sqlRefusal } from './errors.js';
import { asStored, jsonb } from './json.js';
import type { NewLedgerAccount } from './ledgerAccounts.js';
import type { Db } from './sql.js';

export type LedgerEntryRow = {
  workspaceId: string;
  ledgerId: string;
  id: string;
  ik: string;
  type: string | null;
  typeVersion: number | null;
  parameters: Record<string, unknown> | null;
  description: string | null;
  posted: Date;
  created: Date;
  tags: { key: string; value: string }[];
  groups: { key: string; value: string }[];
  conditions: unknown[];
  reversalPosition: number;
  reversesId: string | null;
  reversedById: string | null;
  reversedAt: Date | null;
  requestHash: string;
};

export type LedgerLineRow = {
  workspaceId: string;
  ledgerId: string;
  id: string;
  entryId: string;
  position: number;
  accountId: string;
  currency: string;
  /** numeric, as PostgreSQL's exact decimal text: money never becomes a JS number. */
  amount: string;
  key: string | null;
  description: string | null;
  tags: { key: string; value: string }[];
  posted: Date;
  created: Date;
};

/** Columns of an entry row; `e` names the table alias in queries that join. */
export const entryColumns = (db: Db, e = 'ledger_entries') => db`
  ${db(`${e}.workspace_id`)} as "workspaceId", ${db(`${e}.ledger_id`)} as "ledgerId", ${db(`${e}.id`)}, ${db(`${e}.ik`)},
  ${db(`${e}.type`)}, ${db(`${e}.type_version`)} as "typeVersion", ${db(`${e}.parameters`)}, ${db(`${e}.description`)},
  ${db(`${e}.posted`)}, ${db(`${e}.created`)}, ${db(`${e}.tags`)}, ${db(`${e}.groups`)}, ${db(`${e}.conditions`)},
  ${db(`${e}.reversal_position`)} as "reversalPosition", ${db(`${e}.reverses_id`)} as "reversesId",
  ${db(`${e}.reversed_by_id`)} as "reversedById", ${db(`${e}.reversed_at`)} as "reversedAt", ${db(`${e}.request_hash`)} as "requestHash"`;

/** Columns of a line row; `l` names the table alias in queries that join. */
export const lineColumns = (db: Db, l = 'ledger_lines') => db`
  ${db(`${l}.workspace_id`)} as "workspaceId", ${db(`${l}.ledger_id`)} as "ledgerId", ${db(`${l}.id`)}, ${db(`${l}.entry_id`)} as "entryId",
  ${db(`${l}.position`)}, ${db(`${l}.account_id`)} as "accountId", ${db(`${l}.currency`)}, ${db(`${l}.amount`)}::text as amount,
  ${db(`${l}.key`)}, ${db(`${l}.description`)}, ${db(`${l}.tags`)}, ${db(`${l}.posted`)}, ${db(`${l}.created`)}`;

/** A balance bound of a condition, as decimal text: stored in the entry's conditions (jsonb). */
export type PostingBound = { eq?: string; gte?: string; lte?: string };

export type EntryPosting = {
  workspaceId: string;
  ledgerId: string;
  /** The ledger's posting revision the entry was prepared from (refused once stale); null: not checked. */
  ledgerRevision: string | null;
  /**
   * The ledger's balance UTC offset as prepared, with each line's `ownBalanceStrong`: the group
   * statement then needs to read neither the ledger nor the accounts for them (their revision is
   * checked). Absent: it reads them.
   */
  ledgerUtcOffset?: string;
  entryId: string;
  ik: string;
  requestHash: string;
  posted: string;
  type: string | null;
  typeVersion: number | null;
  parameters: EntryParameters | null;
  description: string | null;
  tags: { key: string; value: string }[];
  groups: { key: string; value: string }[];
  /** Own bounds in precondition/postcondition (their stored names since the first release); total bounds beside them. */
  conditions: {
    index: number;
    accountId: string;
    currency: string;
    precondition?: PostingBound;
    postcondition?: PostingBound;
    totalPrecondition?: PostingBound;
    totalPostcondition?: PostingBound;
  }[];
  lines: {
    id: string;
    accountId: string;
    currency: string;
    amount: string;
    key: string | null;
    description: string | null;
    tags: { key: string; value: string }[];
    /** Whether the account's own balance is updated under its lock (not `eventual`), as prepared. */
    ownBalanceStrong?: boolean;
  }[];
};

export type PostingOutcome =
  | {
      entryId: string;
      requestHash: string;
      replayed: boolean;
      created: Date;
      position: number;
      /** Some account the entry planned was created meanwhile by another posting: its lines name that one. */
      remapped?: boolean;
    }
  | { failedCondition: number };

/** A template instance planned by the entry at `ordinal` (1-based) of a group. */
export type PlannedAccountOf = { ordinal: number; account: NewLedgerAccount };

/** The entry and lines a fresh posting wrote, as they now stand in the database, without reading them back. */
export function postedRows(
  posting: EntryPosting,
  created: Date,
  position: number,
): { entry: LedgerEntryRow; lines: LedgerLineRow[] } {
  const { workspaceId, ledgerId, entryId } = posting;
  const posted = new Date(posting.posted);
  return {
    entry: {
      workspaceId,
      ledgerId,
      id: entryId,
      ik: posting.ik,
      type: posting.type,
      typeVersion: posting.typeVersion,
      parameters: posting.parameters,
      description: posting.description,
      posted,
      created,
      tags: posting.tags,
      groups: posting.groups,
      conditions: asStored(posting.conditions),
      reversalPosition: position,
      reversesId: null,
      reversedById: null,
      reversedAt: null,
      requestHash: posting.requestHash,
    },
    lines: posting.lines.map((line, index) => ({
      workspaceId,
      ledgerId,
      id: line.id,
      entryId,
      position: index + 1,
      accountId: line.accountId,
      currency: line.currency,
      amount: line.amount,
      key: line.key,
      description: line.description ?? posting.description,
      tags: line.tags,
      posted,
      created,
    })),
  };
}

/**
 * Posts the entry in one statement (post_ledger_entry_checked); on a replayed ik, names the
 * entry holding it; when a condition does not hold, nothing of this entry is written and the
 * condition's index is returned, without aborting the caller's transaction.
 */
export async function postLedgerEntry(db: Db, posting: EntryPosting): Promise<PostingOutcome> {
  const column = <K extends keyof EntryPosting['lines'][number]>(key: K) => posting.lines.map((line) => line[key]);
  const [row] = await db<
    {
      entryId: string;
      requestHash: string;
      replayed: boolean;
      created: Date;
      position: number;
      failedCondition: number | null;
    }[]
  >`
    /* postLedgerEntry */
    select posted_entry_id as "entryId", posted_request_hash as "requestHash", replayed, posted_created as created,
           posted_position as position, failed_condition as "failedCondition"
    from post_ledger_entry_checked(
      ${posting.workspaceId}, ${posting.ledgerId}, ${posting.entryId}, ${posting.ik}, ${posting.requestHash},
      ${posting.type}, ${posting.typeVersion}, ${posting.parameters === null ? null : jsonb(db, posting.parameters)},
      ${posting.posted}::timestamptz, ${posting.description}, ${jsonb(db, posting.tags)}, ${jsonb(db, posting.groups)},
      ${jsonb(db, posting.conditions)},
      ${column('id')}::text[], ${column('accountId')}::text[], ${column('currency')}::text[], ${column('amount')}::numeric[],
      ${column('key') as string[]}::text[], ${column('description') as string[]}::text[], ${jsonb(db, column('tags'))},
      ${posting.ledgerRevision}::bigint)`;
  if (row.failedCondition !== null) return { failedCondition: row.failedCondition };
  const { failedCondition: _none, ...posted } = row;
  return posted;
}

/**
 * Refuses (posting_target_changed) when the ledger revision the posting was prepared from is no
 * longer current, for a caller that answers from it without posting (a replay it finds itself).
 */
export async function requireCurrentLedgerRevision(db: Db, posting: EntryPosting): Promise<void> {
  if (posting.ledgerRevision === null) return;
  await db`
    /* requireCurrentLedgerRevision */
    select require_current_ledger_revisions(${[posting.workspaceId]}::text[], ${[posting.ledgerId]}::text[],
                                            ${[posting.ledgerRevision]}::bigint[])`;
}

/** A balance row a posting updates under its lock (a strong or bounded account), locked before a batch posts. */
export type BalanceRowKey = { workspaceId: string; accountId: string; currency: string };

/**
 * Posts the entries in one set-based statement sequence and one commit (post_ledger_entry_group),
 * each answered as if posted alone in this order: a replayed ik names the entry holding it, a
 * failed condition refuses only its entry. No two entries may share an ik. Planned template
 * instances are created in the same statement; those only refused entries needed are not kept.
 */
export async function postLedgerEntries(
  db: Db,
  postings: readonly EntryPosting[],
  newAccounts: readonly PlannedAccountOf[] = [],
  allOrNothing = false,
): Promise<PostingOutcome[]> {
  const entry = <T>(pick: (posting: EntryPosting) => T) => postings.map(pick);
  const lines = postings.flatMap((posting, index) => posting.lines.map((line) => ({ ordinal: index + 1, line })));
  const line = <T>(pick: (item: EntryPosting['lines'][number]) => T) => lines.map((item) => pick(item.line));
  // Per-line flags go as 1 and 0: postgres.js types a boolean array as one boolean, and writes a
  // string element as false.
  const rows = await db<
    {
      ordinal: number;
      entryId: string;
      requestHash: string;
      replayed: boolean;
      created: Date;
      position: number;
      failedCondition: number | null;
      remapped: boolean;
    }[]
  >`
    /* postLedgerEntries */
    select ordinal, posted_entry_id as "entryId", posted_request_hash as "requestHash", replayed, posted_created as created,
           posted_position as position, failed_condition as "failedCondition", remapped
    from post_ledger_entry_group(
      ${entry((p) => p.workspaceId)}::text[], ${entry((p) => p.ledgerId)}::text[], ${entry((p) => p.entryId)}::text[],
      ${entry((p) => p.ik)}::text[], ${entry((p) => p.requestHash)}::text[], ${entry((p) => p.type) as string[]}::text[],
      ${entry((p) => p.typeVersion) as number[]}::integer[], ${entry((p) => p.posted)}::timestamptz[],
      ${entry((p) => p.description) as string[]}::text[], ${jsonb(
        db,
        entry((p) => p.parameters),
      )},
      ${jsonb(
        db,
        entry((p) => p.tags),
      )}, ${jsonb(
        db,
        entry((p) => p.groups),
      )}, ${jsonb(
        db,
        entry((p) => p.conditions),
      )},
      ${lines.map((item) => item.ordinal)}::integer[], ${line((l) => l.id)}::text[], ${line((l) => l.accountId)}::text[],
      ${line((l) => l.currency)}::text[], ${line((l) => l.amount)}::numeric[], ${line((l) => l.key) as string[]}::text[],
      ${line((l) => l.description) as string[]}::text[], ${jsonb(
        db,
        line((l) => l.tags),
      )},
      ${jsonb(
        db,
        newAccounts.map(({ ordinal, account }) => ({ ...account, entry: ordinal })),
      )}, ${allOrNothing}, ${entry((p) => p.ledgerRevision) as string[]}::bigint[],
      ${entry((p) => (p.ledgerUtcOffset ? (ledgerLocalHour(p.posted, p.ledgerUtcOffset) ?? null) : null)) as string[]}::timestamp[],
      ${line((l) => (l.ownBalanceStrong === undefined ? null : Number(l.ownBalanceStrong))) as number[]}::integer[]::boolean[])`;
  const outcomes: PostingOutcome[] = [];
  for (const { ordinal, failedCondition, remapped, ...posted } of rows) {
    outcomes[ordinal - 1] =
      failedCondition !== null ? { failedCondition } : remapped ? { ...posted, remapped } : posted;
  }
  return outcomes;
}

/** A batch's answer: every entry's outcome, or the entry (0-based) whose refusal wrote nothing. */
export type BatchOutcome = { outcomes: PostingOutcome[] } | { refused: number; outcome: PostingOutcome };

/**
 * Posts the entries all or nothing in one statement, without a transaction around it: the
 * first entry refused by a condition, or else the first whose ik another request's entry
 * holds, is the answer and nothing is written (refuse_batch).
 */
export async function postLedgerEntriesAtomically(
  db: Db,
  postings: readonly EntryPosting[],
  newAccounts: readonly PlannedAccountOf[] = [],
): Promise<BatchOutcome> {
  try {
    return { outcomes: await postLedgerEntries(db, postings, newAccounts, true) };
  } catch (error) {
    const refusal = sqlRefusal(error);
    if (refusal?.name !== 'batch_refused') throw error;
    const refused = JSON.parse(refusal.detail ?? '{}') as { entry: number; failedCondition?: number } & Record<
      string,
      string | number
    >;
    const outcome: PostingOutcome =
      refused.failedCondition !== undefined
        ? { failedCondition: refused.failedCondition }
        : {
            entryId: String(refused.entryId),
            requestHash: String(refused.requestHash),
            replayed: true,
            created: new Date(refused.created),
            position: Number(refused.position),
          };
    return { refused: refused.entry - 1, outcome };
  }
}

export type EntryMatch = { id?: string; ledgerId?: string; ik?: string };

/** The entry matching every given key; for an ik shared after reversals, the newest one. */
export async function findLedgerEntry(
  db: Db,
  workspaceId: string,
  match: EntryMatch,
): Promise<LedgerEntryRow | undefined> {
  const [row] = await db<LedgerEntryRow[]>`
    /* findLedgerEntry */
    select ${entryColumns(db)} from ledger_entries
    where workspace_id = ${workspaceId}
      ${match.id !== undefined ? db`and id = ${match.id}` : db``}
      ${match.ledgerId !== undefined ? db`and ledger_id = ${match.ledgerId}` : db``}
      ${match.ik !== undefined ? db`and ik = ${match.ik}` : db``}
    order by reversal_position desc limit 1`;
  return row;
}

export async function linesOfEntry(db: Db, workspaceId: string, entryId: string): Promise<LedgerLineRow[]> {
  return db<LedgerLineRow[]>`
    /* linesOfEntry */
    select ${lineColumns(db)} from ledger_lines where workspace_id = ${workspaceId} and entry_id = ${entryId} order by position`;
}

/** Entries by id, for per-request batching. */
export async function findLedgerEntriesById(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<LedgerEntryRow[]> {
  return db<LedgerEntryRow[]>`
    /* findLedgerEntriesById */
    select ${entryColumns(db)} from ledger_entries where workspace_id = ${workspaceId} and id = any(${ids as string[]}::text[])`;
}

/** Lines of many entries, in entry and position order, for per-request batching. */
export async function linesOfEntries(
  db: Db,
  workspaceId: string,
  entryIds: readonly string[],
): Promise<LedgerLineRow[]> {
  return db<LedgerLineRow[]>`
    /* linesOfEntries */
    select ${lineColumns(db)} from ledger_lines
    where workspace_id = ${workspaceId} and entry_id = any(${entryIds as string[]}::text[]) order by entry_id, position`;
}

export async function findLedgerLine(db: Db, workspaceId: string, id: string): Promise<LedgerLineRow | undefined> {
  const [row] = await db<LedgerLineRow[]>`
    /* findLedgerLine */
    select ${lineColumns(db)} from ledger_lines where workspace_id = ${workspaceId} and id = ${id}`;
  return row;
}

export type ReversalOutcome = { reversedId: string; reversingId: string; replayed: boolean };

/** Reverses the entry in one statement (reverse_ledger_entry); undefined when no such entry exists. */
export async function reverseLedgerEntry(
  db: Db,
  workspaceId: string,
  entryId: string,
  newEntryId: string,
  lineIds: readonly string[],
): Promise<ReversalOutcome | undefined> {
  const [row] = await db<ReversalOutcome[]>`
    /* reverseLedgerEntry */
    select reversed_id as "reversedId", reversing_id as "reversingId", replayed
    from reverse_ledger_entry(${workspaceId}, ${entryId}, ${newEntryId}, ${lineIds as string[]}::text[])`;
  return row;
}

/** The entry locked for a change of its tags or groups. */
export async function lockLedgerEntry(db: Db, workspaceId: string, id: string): Promise<LedgerEntryRow | undefined> {
  const [row] = await db<LedgerEntryRow[]>`
    /* lockLedgerEntry */
    select ${entryColumns(db)} from ledger_entries where workspace_id = ${workspaceId} and id = ${id} for update`;
  return row;
}

export async function setEntryLabels(
  db: Db,
  workspaceId: string,
  id: string,
  tags: readonly { key: string; value: string }[],
  groups: readonly { key: string; value: string }[],
): Promise<LedgerEntryRow> {
  const [row] = await db<LedgerEntryRow[]>`
    /* setEntryLabels */
    update ledger_entries set tags = ${jsonb(db, tags)}, groups = ${jsonb(db, groups)}
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${entryColumns(db)}`;
  return row;
}

/**
 * Locks the balance rows a multi-entry transaction will update under a lock (lock_balance_rows), in
 * the one global order single postings use, creating missing rows at zero: a transaction that
 * holds all its locks before its first posting can never deadlock with another.
 */
export async function lockBalances(
  db: Db,
  workspaceId: string,
  pairs: readonly { accountId: string; currency: string }[],
): Promise<void> {
  await db`
    /* lockBalances */
    select lock_balance_rows(${pairs.map(() => workspaceId)}::text[], ${pairs.map((pair) => pair.accountId)}::text[],
                             ${pairs.map((pair) => pair.currency)}::text[])`;
}

/** Replaces the tags of the entry's lines given by id; answers the ids it changed. */
export async function setLineTags(
  db: Db,
  workspaceId: string,
  entryId: string,
  changes: readonly { lineId: string; tags: { key: string; value: string }[] }[],
): Promise<string[]> {
  if (changes.length === 0) return [];
  const rows = await db<{ id: string }[]>`
    /* setLineTags */
    update ledger_lines l set tags = t.tags
    from jsonb_to_recordset(${jsonb(db, changes)}) as t("lineId" text, tags jsonb)
    where l.workspace_id = ${workspaceId} and l.entry_id = ${entryId} and l.id = t."lineId"
    returning l.id`;
  return rows.map((row) => row.id);
}
