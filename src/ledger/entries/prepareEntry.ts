import type { LedgerEntryInput } from '../../../generated/ledger.js';
import { resolvePath } from '../../core/chart.js';
import { checkBalanced, linesToWrite, MAX_GROUPS, MAX_LINES_PER_ENTRY, MAX_TAGS } from '../../core/entries.js';
import { flatParameters } from '../../core/entryTypes.js';
import { DomainError } from '../../core/errors.js';
import { fingerprint } from '../../core/fingerprint.js';
import { newId } from '../../core/ids.js';
import { scalarFormats } from '../../core/scalarFormats.js';
import type { LedgerAccountRow, NewLedgerAccount } from '../../db/ledgerAccounts.js';
import type { EntryPosting } from '../../db/ledgerEntries.js';
import type { TargetLedger } from '../../db/postingLookup.js';
import type { LoadedSchema } from '../schemas/schemaVersions.js';
import { accountKey, entryAccounts } from './entryAccounts.js';
import { requireCurrencies } from '../links/customCurrencies.js';
import { explicitEntry, type ExplicitCondition, type TxRef } from './explicitEntry.js';
import type { PostingContext } from './postingTargets.js';

type Bound = { eq?: string; gte?: string; lte?: string };
type BoundInput = { eq?: string | null; gte?: string | null; lte?: string | null };

// An entry checked and turned into a posting: typed entries rendered from their schema type,
// accounts resolved in one query (template instances planned), currencies and the balancing
// rule checked, conditions bound to the entry's own lines. Everything here is refused before
// the database is written.

export type PreparedEntry = {
  posting: EntryPosting;
  /** Keyed by id and by `path:<path>`. */
  accounts: Map<string, LedgerAccountRow>;
  /** Template instances the entry creates, inserted in the posting's transaction. */
  newAccounts: NewLedgerAccount[];
  /** Lines (by position, from 1) on linked accounts, with the transaction each reconciles. */
  txLines: { position: number; account: LedgerAccountRow; tx: TxRef }[];
};

/** `reconcile`: the entry comes from reconcileTx, the only way lines reach linked accounts. */
export type PrepareOptions = { prefetched?: readonly LedgerAccountRow[]; reconcile?: boolean };

export async function prepareEntry(
  ctx: PostingContext,
  ledger: TargetLedger,
  schema: LoadedSchema | undefined,
  ik: string,
  input: LedgerEntryInput,
  options: PrepareOptions = {},
): Promise<PreparedEntry> {
  const { prefetched, reconcile = false } = options;
  const entry = explicitEntry(input, schema);
  const lines = entry.lines;
  if (lines.length === 0) throw new DomainError('invalid_input_provided', 'An entry needs lines.');
  if (lines.length > MAX_LINES_PER_ENTRY) {
    throw new DomainError(
      'ledger_entry_too_many_lines',
      `An entry may have at most ${MAX_LINES_PER_ENTRY} lines; this one has ${lines.length}.`,
    );
  }
  const tags = uniqueKeys(entry.tags, MAX_TAGS, 'tag');
  const groups = uniqueKeys(entry.groups, MAX_GROUPS, 'group');
  const keys = new Set<string>();
  for (const [index, line] of lines.entries()) {
    if (line.tx && !reconcile)
      throw new DomainError(
        'reconciliation_required',
        `lines[${index}] names a transaction; reconcile transactions with reconcileTx.`,
      );
    if (line.amount == null) throw new DomainError('invalid_input_provided', `lines[${index}] needs an amount.`);
    if (scalarFormats.Int96(line.amount) === undefined) {
      throw new DomainError('invalid_input_provided', `lines[${index}]: ${line.amount} is outside the Int96 range.`);
    }
    if (line.key != null && keys.has(line.key))
      throw new DomainError('invalid_input_provided', `Line key ${line.key} appears twice.`);
    if (line.key != null) keys.add(line.key);
  }

  const refs = [...lines.map((line) => line.account), ...entry.conditions.map((condition) => condition.account)];
  const { byKey: accounts, planned } = await entryAccounts(
    ctx,
    ledger,
    schema,
    refs,
    flatParameters(entry.parameters ?? {}),
    prefetched,
  );
  const givenLines = lines.map((line, index) => {
    const account = accounts.get(accountKey(line.account))!;
    if (schema && chartAccountOf(schema, account.path)?.disabled) {
      throw new DomainError(
        'invalid_input_provided',
        `lines[${index}]: ${account.path} is disabled in the schema and takes no new lines.`,
      );
    }
    checkLinkedLine(account, line.tx, reconcile, `lines[${index}]`);
    return {
      id: newId('line'),
      account,
      accountId: account.id,
      currency: lineCurrency(account, line.currency, `lines[${index}]`),
      amount: line.amount!,
      key: line.key,
      description: line.description,
      tags: uniqueKeys(line.tags, MAX_TAGS, `tag of lines[${index}]`),
      tx: line.tx,
      txKey: line.tx ? JSON.stringify(line.tx) : null,
    };
  });
  const postedLines = linesToWrite(givenLines, entry.postLinesAs);
  await requireCurrencies(ctx.sql, ledger.workspaceId, [
    ...postedLines.map((line) => line.currency),
    ...planned.map((account) => account.currencyCode),
  ]);
  const txLines = postedLines.flatMap((line, index) =>
    line.tx ? [{ position: index + 1, account: line.account, tx: line.tx }] : [],
  );
  if (reconcile && txLines.length === 0) {
    throw new DomainError(
      'reconciliation_required',
      'reconcileTx needs a line on a linked account that names the transaction it reconciles (tx).',
    );
  }
  checkBalanced(
    postedLines.map((line) => ({
      accountType: line.account.type,
      currency: line.currency,
      amount: BigInt(line.amount),
    })),
  );
  const conditions = entry.conditions.map((condition, index) =>
    boundCondition(condition, index, accounts, postedLines),
  );

  // Paths, not ids: an entry that created template instances hashes the same when replayed.
  const normalized = {
    type: entry.type,
    typeVersion: entry.typeVersion,
    parameters: entry.parameters,
    posted: input.posted ?? null,
    description: entry.description,
    tags,
    groups,
    lines: postedLines.map(({ account, currency, amount, key, description, tags: lineTags, tx }) => ({
      account: account.path,
      currency,
      amount,
      key,
      description,
      tags: lineTags,
      // Present only when set, so entries without transactions keep the hash they always had.
      ...(tx ? { tx } : {}),
    })),
    conditions: conditions.map(({ index: _index, accountId, ...condition }) => ({
      ...condition,
      account: accounts.get(accountId)!.path,
    })),
  };
  return {
    accounts,
    newAccounts: planned,
    txLines,
    posting: {
      workspaceId: ledger.workspaceId,
      ledgerId: ledger.id,
      ledgerRevision: ledger.postingRevision,
      ledgerUtcOffset: ledger.balanceUtcOffset,
      entryId: newId('ent'),
      ik,
      requestHash: fingerprint(normalized),
      type: entry.type,
      typeVersion: entry.typeVersion,
      parameters: entry.parameters,
      posted: input.posted ?? (ctx.sandbox?.now ?? new Date()).toISOString(),
      description: entry.description,
      tags,
      groups,
      conditions,
      lines: postedLines.map(({ id, account, accountId, currency, amount, key, description, tags: lineTags }) => ({
        id,
        accountId,
        currency,
        amount,
        key,
        description,
        tags: lineTags,
        // As posting SQL reads it: an account that names no setting is strong.
        ownBalanceStrong: account.consistency.ownBalanceUpdates !== 'eventual',
      })),
    },
  };
}

type PostedLine = { account: LedgerAccountRow; currency: string };

/** Linked accounts take lines only from reconcileTx, each naming its transaction; other accounts never name one. */
function checkLinkedLine(account: LedgerAccountRow, tx: TxRef | null, reconcile: boolean, where: string): void {
  if (account.linkedAccountId && !reconcile) {
    throw new DomainError(
      'reconciliation_required',
      `${where}: ${account.path} is linked to an external account; post to it with reconcileTx.`,
    );
  }
  if (account.linkedAccountId && !tx) {
    throw new DomainError(
      'reconciliation_required',
      `${where}: ${account.path} is a linked account; the line must name the transaction it reconciles (tx).`,
    );
  }
  if (!account.linkedAccountId && tx) {
    throw new DomainError(
      'invalid_input_provided',
      `${where}: ${account.path} is not linked to an external account, so its line cannot reconcile a transaction.`,
    );
  }
}

function chartAccountOf(schema: LoadedSchema, path: string) {
  try {
    return resolvePath(schema.chart, path).at(-1)!.chartAccount;
  } catch {
    return undefined;
  }
}

function boundCondition(
  condition: ExplicitCondition,
  index: number,
  accounts: Map<string, LedgerAccountRow>,
  lines: readonly PostedLine[],
) {
  const account = accounts.get(accountKey(condition.account))!;
  const currency = lineCurrency(account, condition.currency, `conditions[${index}]`);
  if (!condition.precondition && !condition.postcondition) {
    throw new DomainError('invalid_input_provided', `Condition ${index} needs a precondition or a postcondition.`);
  }
  const bounds = (bound: BoundInput | null | undefined): Bound | undefined => {
    if (!bound) return undefined;
    if (bound.eq != null && (bound.gte != null || bound.lte != null)) {
      throw new DomainError('invalid_input_provided', `Condition ${index}: eq cannot be combined with gte or lte.`);
    }
    return { eq: bound.eq ?? undefined, gte: bound.gte ?? undefined, lte: bound.lte ?? undefined };
  };
  const bound = {
    index,
    accountId: account.id,
    currency,
    precondition: bounds(condition.precondition?.ownBalance),
    postcondition: bounds(condition.postcondition?.ownBalance),
    totalPrecondition: bounds(condition.precondition?.totalBalance),
    totalPostcondition: bounds(condition.postcondition?.totalBalance),
  };
  if (!bound.precondition && !bound.postcondition && !bound.totalPrecondition && !bound.totalPostcondition) {
    throw new DomainError('invalid_input_provided', `Condition ${index} needs an ownBalance or a totalBalance bound.`);
  }
  // An own bound guards the account's own lines; a total bound guards its whole subtree.
  const touched = (line: PostedLine) =>
    line.currency === currency &&
    (line.account.id === account.id ||
      ((bound.totalPrecondition || bound.totalPostcondition) && line.account.path.startsWith(`${account.path}/`)));
  if (!lines.some(touched)) {
    throw new DomainError(
      'invalid_input_provided',
      `Condition ${index} names ${account.path} in ${currency}, which this entry does not touch.`,
    );
  }
  if (
    (bound.precondition || bound.postcondition) &&
    !lines.some((line) => line.account.id === account.id && line.currency === currency)
  ) {
    throw new DomainError(
      'invalid_input_provided',
      `Condition ${index} bounds the own balance of ${account.path} in ${currency}, which has no line in this entry.`,
    );
  }
  return bound;
}

/** The line's currency: the account's own for a single-currency account, and required for a multi-currency one. */
function lineCurrency(account: LedgerAccountRow, given: string | null, where: string): string {
  if (account.currencyMode === 'multi') {
    if (!given)
      throw new DomainError(
        'invalid_input_provided',
        `${where}: ${account.path} holds several currencies; name the currency.`,
      );
    return given;
  }
  if (given && given !== account.currencyCode) {
    throw new DomainError(
      'invalid_input_provided',
      `${where}: ${account.path} holds ${account.currencyCode}, not ${given}.`,
    );
  }
  return account.currencyCode!;
}

function uniqueKeys(items: readonly { key: string; value: string }[], max: number, what: string) {
  if (items.length > max)
    throw new DomainError('invalid_input_provided', `At most ${max} ${what}s are allowed; ${items.length} were given.`);
  const seen = new Set<string>();
  for (const item of items) {
    // Values rendered from parameters must still be what the contract allows a tag or group to be.
    if (scalarFormats.SafeString(item.value) === undefined) {
      throw new DomainError(
        'invalid_input_provided',
        `The ${what} ${item.key} has value '${item.value}', which is not a SafeString (1 to 128 characters, no / # :).`,
      );
    }
    const id = what.startsWith('tag') ? item.key : `${item.key}\u0000${item.value}`;
    if (seen.has(id)) throw new DomainError('invalid_input_provided', `The ${what} ${item.key} appears twice.`);
    seen.add(id);
  }
  return items.map(({ key, value }) => ({ key, value }));
}
