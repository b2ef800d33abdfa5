import type { LedgerEntryInput } from '../../../generated/ledger.js';
import { checkBalanced, MAX_GROUPS, MAX_LINES_PER_ENTRY, MAX_TAGS } from '../../core/entries.js';
import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { newId } from '../../core/ids.js';
import { findAccountsOfLedger, type LedgerAccountRow } from '../../db/ledgerAccounts.js';
import type { EntryPosting } from '../../db/ledgerEntries.js';
import type { LedgerRow } from '../../db/ledgers.js';
import type { Db } from '../../db/sql.js';

// An entry with explicit lines, in a ledger without schema, checked and turned into a posting:
// accounts resolved in one query, currencies and the balancing rule checked, conditions bound to
// the entry's own accounts. Everything here is refused before the database is written.

type LineInput = NonNullable<LedgerEntryInput['lines']>[number];
type AccountMatch = LineInput['account'];

export type PreparedEntry = { posting: EntryPosting; accounts: Map<string, LedgerAccountRow>; conditionAccounts: string[] };

export async function prepareRuntimeEntry(db: Db, ledger: LedgerRow, ik: string, entry: LedgerEntryInput): Promise<PreparedEntry> {
  if (entry.type != null || entry.typeVersion != null || entry.parameters != null) {
    throw new DomainError('not_implemented', 'Typed entries come from schemas; in a ledger without schema, post explicit lines.');
  }
  const lines = entry.lines ?? [];
  if (lines.length === 0) throw new DomainError('invalid_input_provided', 'An entry needs lines.');
  if (lines.length > MAX_LINES_PER_ENTRY) {
    throw new DomainError('ledger_entry_too_many_lines', `An entry may have at most ${MAX_LINES_PER_ENTRY} lines; this one has ${lines.length}.`);
  }
  const tags = uniqueKeys(entry.tags ?? [], MAX_TAGS, 'tag');
  const groups = uniqueKeys(entry.groups ?? [], MAX_GROUPS, 'group');
  const keys = new Set<string>();
  for (const line of lines) {
    if (line.tx) throw new DomainError('not_implemented', 'Lines that reconcile external transactions are not available in this version of Tally yet.');
    if (line.tags?.length) throw new DomainError('not_implemented', 'Line tags are not available in this version of Tally yet.');
    if (line.amount == null) throw new DomainError('invalid_input_provided', 'Every line of an entry without a type needs an amount.');
    if (line.key != null && keys.has(line.key)) throw new DomainError('invalid_input_provided', `Line key ${line.key} appears twice.`);
    if (line.key != null) keys.add(line.key);
  }

  const matches = [...lines.map((line) => line.account), ...(entry.conditions ?? []).map((condition) => condition.account)];
  const accounts = await accountsFor(db, ledger, matches);
  const accountOf = (match: AccountMatch) => accounts.get(match.id ?? `path:${match.path}`)!;
  const postedLines = lines.map((line, index) => {
    const account = accountOf(line.account);
    return { id: newId('line'), index, account, currency: lineCurrency(account, line.currency, `lines[${index}]`), amount: line.amount!, key: line.key ?? null, description: line.description ?? null };
  });
  checkBalanced(postedLines.map((line) => ({ accountType: line.account.type, currency: line.currency, amount: BigInt(line.amount) })));

  const conditions = (entry.conditions ?? []).map((condition, index) => {
    const account = accountOf(condition.account);
    const currency = lineCurrency(account, condition.currency, `conditions[${index}]`);
    if (!postedLines.some((line) => line.account.id === account.id && line.currency === currency)) {
      throw new DomainError('invalid_input_provided', `Condition ${index} names ${account.path} in ${currency}, which has no line in this entry.`);
    }
    const bounds = (side: typeof condition.precondition) => {
      if (!side) return undefined;
      if (side.totalBalance) throw new DomainError('not_implemented', 'totalBalance conditions are not available in this version of Tally yet.');
      const own = side.ownBalance;
      if (own && own.eq != null && (own.gte != null || own.lte != null)) {
        throw new DomainError('invalid_input_provided', `Condition ${index}: eq cannot be combined with gte or lte.`);
      }
      return own ? { eq: own.eq ?? undefined, gte: own.gte ?? undefined, lte: own.lte ?? undefined } : undefined;
    };
    return { index, accountId: account.id, currency, precondition: bounds(condition.precondition), postcondition: bounds(condition.postcondition) };
  });

  const normalized = {
    posted: entry.posted ?? null, description: entry.description ?? null, tags, groups,
    lines: postedLines.map(({ account, currency, amount, key, description }) => ({ account: account.id, currency, amount, key, description })),
    conditions: conditions.map(({ index: _index, ...condition }) => condition),
  };
  return {
    accounts,
    conditionAccounts: conditions.map((condition) => condition.accountId),
    posting: {
      workspaceId: ledger.workspaceId, ledgerId: ledger.id, entryId: newId('ent'), ik, requestHash: fingerprint(normalized),
      posted: entry.posted ?? new Date().toISOString(), description: entry.description ?? null, tags, groups, conditions,
      lines: postedLines.map(({ id, account, currency, amount, key, description }) => ({ id, accountId: account.id, currency, amount, key, description })),
    },
  };
}

/** The accounts named by the matches, all in this ledger, keyed by id and by `path:<path>`. */
async function accountsFor(db: Db, ledger: LedgerRow, matches: AccountMatch[]): Promise<Map<string, LedgerAccountRow>> {
  for (const match of matches) {
    if (match.id == null && match.path == null) throw new DomainError('invalid_input_provided', 'Identify every account by id or by path.');
    const other = match.ledger && ((match.ledger.id != null && match.ledger.id !== ledger.id) || (match.ledger.ik != null && match.ledger.ik !== ledger.ik));
    if (other) throw new DomainError('invalid_input_provided', 'Every account of an entry must be in the entry\'s ledger.');
  }
  const ids = matches.flatMap((match) => (match.id != null ? [match.id] : []));
  const paths = matches.flatMap((match) => (match.id == null && match.path != null ? [match.path] : []));
  const found = await findAccountsOfLedger(db, ledger.workspaceId, ledger.id, ids, paths);
  const byKey = new Map<string, LedgerAccountRow>();
  for (const account of found) {
    byKey.set(account.id, account);
    byKey.set(`path:${account.path}`, account);
  }
  for (const match of matches) {
    const account = byKey.get(match.id ?? `path:${match.path}`);
    if (!account || (match.id != null && match.path != null && account.path !== match.path)) {
      throw new DomainError('ledger_account_not_found', `No account ${match.path ?? match.id} in ledger ${ledger.ik}.`);
    }
  }
  return byKey;
}

/** The line's currency: the account's own for a single-currency account, and required for a multi-currency one. */
function lineCurrency(account: LedgerAccountRow, given: { code: string; customCurrencyId?: string | null } | null | undefined, where: string): string {
  if (given?.code === 'CUSTOM' || given?.customCurrencyId) {
    throw new DomainError('not_implemented', 'Custom currencies are not available in this version of Tally yet.');
  }
  if (account.currencyMode === 'multi') {
    if (!given) throw new DomainError('invalid_input_provided', `${where}: ${account.path} holds several currencies; name the currency.`);
    return given.code;
  }
  if (given && given.code !== account.currencyCode) {
    throw new DomainError('invalid_input_provided', `${where}: ${account.path} holds ${account.currencyCode}, not ${given.code}.`);
  }
  return account.currencyCode!;
}

function uniqueKeys(items: readonly { key: string; value: string }[], max: number, what: string) {
  if (items.length > max) throw new DomainError('invalid_input_provided', `An entry may have at most ${max} ${what}s.`);
  const seen = new Set<string>();
  for (const item of items) {
    const id = what === 'tag' ? item.key : `${item.key}\u0000${item.value}`;
    if (seen.has(id)) throw new DomainError('invalid_input_provided', `The ${what} ${item.key} appears twice.`);
    seen.add(id);
  }
  return items.map(({ key, value }) => ({ key, value }));
}
