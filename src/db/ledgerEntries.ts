import postgres from 'postgres';
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
  posted: Date;
  created: Date;
};

const entryColumns = (db: Db) => db`
  workspace_id as "workspaceId", ledger_id as "ledgerId", id, ik, type, type_version as "typeVersion", parameters,
  description, posted, created, tags, groups, conditions, reversal_position as "reversalPosition", request_hash as "requestHash"`;

const lineColumns = (db: Db) => db`
  workspace_id as "workspaceId", ledger_id as "ledgerId", id, entry_id as "entryId", position, account_id as "accountId",
  currency, amount::text as amount, key, description, posted, created`;

export type EntryPosting = {
  workspaceId: string; ledgerId: string; entryId: string; ik: string; requestHash: string; posted: string;
  type: string | null; typeVersion: number | null; parameters: Record<string, string> | null;
  description: string | null; tags: unknown[]; groups: unknown[];
  conditions: { index: number; accountId: string; currency: string; precondition?: unknown; postcondition?: unknown }[];
  lines: { id: string; accountId: string; currency: string; amount: string; key: string | null; description: string | null }[];
};

export type PostingOutcome = { entryId: string; requestHash: string; replayed: boolean } | { failedCondition: number };

/**
 * Posts the entry in one statement (post_ledger_entry); on a replayed ik, names the entry holding
 * it; when a condition does not hold, nothing is written and its index is returned.
 */
export async function postLedgerEntry(db: Db, posting: EntryPosting): Promise<PostingOutcome> {
  const column = <K extends keyof EntryPosting['lines'][number]>(key: K) => posting.lines.map((line) => line[key]);
  const [row] = await db<{ entryId: string; requestHash: string; replayed: boolean }[]>`
    /* postLedgerEntry */
    select posted_entry_id as "entryId", posted_request_hash as "requestHash", replayed from post_ledger_entry(
      ${posting.workspaceId}, ${posting.ledgerId}, ${posting.entryId}, ${posting.ik}, ${posting.requestHash},
      ${posting.type}, ${posting.typeVersion}, ${posting.parameters === null ? null : db.json(posting.parameters)},
      ${posting.posted}::timestamptz, ${posting.description}, ${db.json(posting.tags as never)}, ${db.json(posting.groups as never)},
      ${db.json(posting.conditions as never)},
      ${column('id')}::text[], ${column('accountId')}::text[], ${column('currency')}::text[], ${column('amount')}::numeric[],
      ${column('key') as string[]}::text[], ${column('description') as string[]}::text[])`
    .catch((error: unknown) => {
      if (error instanceof postgres.PostgresError && error.code === 'P0001' && error.message === 'entry_condition_failed') {
        return [{ failedCondition: Number(error.detail) }] as never;
      }
      throw error;
    });
  return row;
}

export type EntryMatch = { id?: string; ledgerId?: string; ik?: string };

/** The entry matching every given key; for an ik shared after reversals, the newest one. */
export async function findLedgerEntry(db: Db, workspaceId: string, match: EntryMatch): Promise<LedgerEntryRow | undefined> {
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

export type BalanceRow = { currency: string; amount: string };

/** Current own balances of one account, per currency. */
export async function ownBalances(db: Db, workspaceId: string, accountId: string): Promise<BalanceRow[]> {
  return db<BalanceRow[]>`
    /* ownBalances */
    select currency, own_balance::text as amount from ledger_account_balances
    where workspace_id = ${workspaceId} and account_id = ${accountId} order by currency`;
}

/** Current balances of all descendants of an account (by path), summed per currency. */
export async function childBalances(db: Db, workspaceId: string, ledgerId: string, path: string): Promise<BalanceRow[]> {
  const below = `${path.replace(/[\\%_]/g, (ch) => `\\${ch}`)}/%`;
  return db<BalanceRow[]>`
    /* childBalances */
    select b.currency, sum(b.own_balance)::text as amount
    from ledger_accounts a join ledger_account_balances b on b.workspace_id = a.workspace_id and b.account_id = a.id
    where a.workspace_id = ${workspaceId} and a.ledger_id = ${ledgerId} and a.path like ${below}
    group by b.currency order by b.currency`;
}
