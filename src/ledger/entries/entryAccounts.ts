import { instancesFor, resolvePath } from '../../core/chart.js';
import { DomainError } from '../../core/errors.js';
import type { Parameters } from '../../core/templates.js';
import type { LedgerAccountRow, NewLedgerAccount } from '../../db/ledgerAccounts.js';
import type { LedgerRow } from '../../db/ledgers.js';
import { linkPlannedRows, plannedAccountRows } from '../schemas/chartAccounts.js';
import type { LoadedSchema } from '../schemas/schemaVersions.js';
import type { AccountRef } from './explicitEntry.js';
import type { PostingContext } from './postingTargets.js';
import { StaleTargets } from './staleTargets.js';

// The accounts an entry names, found in one query (shared with the entries that arrive with it). In a ledger on a schema, a path the ledger
// does not hold yet but the chart describes (a template instance such as `users:u1/available`)
// is planned for creation with its subtree, to be inserted in the posting's transaction.

export type EntryAccounts = {
  /** The accounts the entry names or plans, keyed by id, `path:<path>` and `ik:<ik>`. */
  byKey: Map<string, LedgerAccountRow>;
  planned: NewLedgerAccount[];
};

/** How an entry's account reference is looked up: by id, else by path, else by ik. */
export const accountKey = (ref: AccountRef) =>
  ref.id != null ? ref.id : ref.path != null ? `path:${ref.path}` : `ik:${ref.ik}`;

/** `prefetched` holds accounts already read with the ledger; only what it lacks is queried. */
export async function entryAccounts(
  ctx: PostingContext,
  ledger: LedgerRow & { postingRevision?: string },
  schema: LoadedSchema | undefined,
  refs: readonly AccountRef[],
  parameters: Parameters,
  prefetched?: readonly LedgerAccountRow[],
): Promise<EntryAccounts> {
  for (const ref of refs) {
    if (ref.id == null && ref.path == null && ref.ik == null)
      throw new DomainError('invalid_input_provided', 'Identify every account by id, path or ik.');
    const other =
      ref.ledger &&
      ((ref.ledger.id != null && ref.ledger.id !== ledger.id) ||
        (ref.ledger.ik != null && ref.ledger.ik !== ledger.ik));
    if (other)
      throw new DomainError('invalid_input_provided', "Every account of an entry must be in the entry's ledger.");
  }
  const ids = refs.flatMap((ref) => (ref.id != null ? [ref.id] : []));
  const paths = refs.flatMap((ref) => (ref.id == null && ref.path != null ? [ref.path] : []));
  const iks = refs.flatMap((ref) => (ref.id == null && ref.path == null && ref.ik != null ? [ref.ik] : []));
  // Ancestors too: a new template instance hangs under the nearest account that exists.
  const lookup = schema ? [...new Set(paths.flatMap(prefixes))] : paths;
  const shared = prefetched ? indexOf(prefetched) : undefined;
  // What the batch's list lacks, read for this entry alone (the shared index is never copied).
  const fetched = new Map<string, LedgerAccountRow>();
  // Without a schema a missing account stays missing; with one, its instance may be planned.
  if (!shared || (schema && refs.some((ref) => !shared.has(accountKey(ref))))) {
    const target = await ctx.postingTargets.find({
      workspaceId: ledger.workspaceId,
      match: { id: ledger.id },
      ids,
      paths: lookup,
      iks,
    });
    // The ledger was live when the entry's target was read; deleted since, it takes no entry.
    if (!target) throw new DomainError('ledger_not_found', 'No ledger matches the given id or ik.');
    // The posting states the first read's revision: accounts of another one would go unchecked.
    if (ledger.postingRevision !== undefined && target.ledger.postingRevision !== ledger.postingRevision) {
      throw new StaleTargets(ledger.id, 'its accounts were read at two revisions');
    }
    for (const account of target.accounts) addTo(fetched, account);
  }

  // This entry's own accounts: those it names and those it plans.
  const byKey = new Map<string, LedgerAccountRow>();
  const planned: NewLedgerAccount[] = [];
  // Ids of every account known by path, built at the first plan; plannedAccountRows adds the planned.
  let idsByPath: Map<string, string> | undefined;
  for (const ref of refs) {
    const key = accountKey(ref);
    const found = byKey.get(key) ?? fetched.get(key) ?? shared?.get(key);
    if (found) {
      if ((ref.path != null && found.path !== ref.path) || (ref.ik != null && found.ik !== ref.ik))
        throw notFound(ref, ledger);
      addTo(byKey, found);
      continue;
    }
    if (!schema || ref.path == null || ref.id != null) throw notFound(ref, ledger);
    const resolved = resolvePath(schema.chart, ref.path);
    idsByPath ??= new Map(
      [...(shared?.values() ?? []), ...fetched.values()].map((account) => [account.path, account.id]),
    );
    const known = idsByPath;
    const instances = instancesFor(schema.chart, resolved, (path) => known.has(path));
    const rows = await linkPlannedRows(
      ctx.sql,
      ledger.workspaceId,
      instances,
      plannedAccountRows(ledger, instances, known, parameters),
      parameters,
    );
    for (const row of rows) {
      addTo(byKey, { ...row, created: ctx.sandbox?.now ?? new Date() });
      planned.push(row);
    }
  }
  return { byKey, planned };
}

/**
 * Accounts keyed by id, `path:<path>` and `ik:<ik>`, built once per list: the entries of a batch
 * share the list read with their ledger, and indexing it for each entry made a batch quadratic.
 */
const indexes = new WeakMap<readonly LedgerAccountRow[], Map<string, LedgerAccountRow>>();
function indexOf(accounts: readonly LedgerAccountRow[]): Map<string, LedgerAccountRow> {
  let index = indexes.get(accounts);
  if (!index) {
    index = new Map();
    for (const account of accounts) addTo(index, account);
    indexes.set(accounts, index);
  }
  return index;
}

function addTo(index: Map<string, LedgerAccountRow>, account: LedgerAccountRow): void {
  index.set(account.id, account);
  index.set(`path:${account.path}`, account);
  index.set(`ik:${account.ik}`, account);
}

function prefixes(path: string): string[] {
  const segments = path.split('/');
  return segments.map((_segment, index) => segments.slice(0, index + 1).join('/'));
}

function notFound(ref: AccountRef, ledger: LedgerRow): DomainError {
  return new DomainError(
    'ledger_account_not_found',
    `No account ${ref.path ?? ref.ik ?? ref.id} in ledger ${ledger.ik}.`,
  );
}
