import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import type { PostingTarget, TargetLedger, TargetQuery } from '../../db/postingLookup.js';

// The posting targets this process has read, per ledger: the ledger row and the accounts entries
// named, by id, path and ik, all as of one posting revision of the ledger. Nothing here needs to
// hear of changes: every posting states the revision it was prepared from and is refused once that
// revision is stale, and the server then forgets the ledger and looks it up again (staleTargets.ts).

/** The accounts of one ledger, by each way an entry may name one (the maps share the rows). */
type HeldAccounts = Record<'ids' | 'paths' | 'iks', Map<string, LedgerAccountRow>>;
type HeldLedger = { ledger: TargetLedger; accounts: HeldAccounts; count: number };

export type PostingTargetCacheOptions = {
  /** Accounts held at most, each ledger counting as one more; past it, everything is dropped and read again. */
  maxAccounts: number;
};

export type PostingTargetCache = {
  /** The target when the ledger and every account the query names are held; else undefined. */
  find(query: TargetQuery): PostingTarget | undefined;
  /** Keeps what a lookup read, unless a newer revision of its ledger is held. */
  keep(target: PostingTarget): void;
  /** Forgets a ledger: a posting found its revision stale. */
  forget(workspaceId: string, ledgerId: string): void;
  /** Accounts held, and one for each ledger: what maxAccounts bounds. */
  size(): number;
};

/** Accounts held at most by default (about 650 bytes of heap each: 6.2 MiB for 10,000, measured). */
export const DEFAULT_POSTING_TARGET_CACHE: PostingTargetCacheOptions = { maxAccounts: 50_000 };

const ledgerKey = (workspaceId: string, kind: 'id' | 'ik', value: string) =>
  `${workspaceId}\u0000${kind}\u0000${value}`;

export function postingTargetCache(options: PostingTargetCacheOptions): PostingTargetCache {
  /** By workspace and ledger id, and by workspace and ledger ik (the same object). */
  const ledgers = new Map<string, HeldLedger>();
  let accounts = 0;

  const held = ({ workspaceId, match }: TargetQuery): HeldLedger | undefined => {
    const found =
      match.id != null
        ? ledgers.get(ledgerKey(workspaceId, 'id', match.id))
        : match.ik != null
          ? ledgers.get(ledgerKey(workspaceId, 'ik', match.ik))
          : undefined;
    // An id and an ik of different ledgers match nothing, as in the database.
    return found && (match.ik == null || found.ledger.ik === match.ik) ? found : undefined;
  };

  const drop = (entry: HeldLedger) => {
    const { workspaceId, id, ik } = entry.ledger;
    if (ledgers.get(ledgerKey(workspaceId, 'id', id)) === entry) ledgers.delete(ledgerKey(workspaceId, 'id', id));
    if (ledgers.get(ledgerKey(workspaceId, 'ik', ik)) === entry) ledgers.delete(ledgerKey(workspaceId, 'ik', ik));
    accounts -= entry.count;
  };

  return {
    find(query) {
      const entry = held(query);
      if (!entry) return undefined;
      const named: LedgerAccountRow[] = [];
      for (const kind of ['ids', 'paths', 'iks'] as const) {
        for (const value of query[kind]) {
          const account = entry.accounts[kind].get(value);
          // Part of a query is no answer: the rest may exist in the database.
          if (!account) return undefined;
          named.push(account);
        }
      }
      return { ledger: entry.ledger, accounts: named, held: true };
    },

    keep({ ledger, accounts: read }) {
      let entry = ledgers.get(ledgerKey(ledger.workspaceId, 'id', ledger.id));
      const revision = BigInt(ledger.postingRevision);
      if (entry && BigInt(entry.ledger.postingRevision) > revision) return;
      if (entry?.ledger.postingRevision !== ledger.postingRevision) {
        // Accounts read under different revisions are never mixed: a newer one replaces them all.
        if (entry) drop(entry);
        // The ledger counts as one: a process naming many ledgers holds them within the bound too.
        entry = { ledger, accounts: { ids: new Map(), paths: new Map(), iks: new Map() }, count: 1 };
        accounts++;
        ledgers.set(ledgerKey(ledger.workspaceId, 'id', ledger.id), entry);
        ledgers.set(ledgerKey(ledger.workspaceId, 'ik', ledger.ik), entry);
      }
      for (const account of read) {
        if (!entry.accounts.ids.has(account.id)) {
          entry.count++;
          accounts++;
        }
        entry.accounts.ids.set(account.id, account);
        entry.accounts.paths.set(account.path, account);
        entry.accounts.iks.set(account.ik, account);
      }
      if (accounts > options.maxAccounts) {
        ledgers.clear();
        accounts = 0;
      }
    },

    forget(workspaceId, ledgerId) {
      const entry = ledgers.get(ledgerKey(workspaceId, 'id', ledgerId));
      if (entry) drop(entry);
    },

    size: () => accounts,
  };
}
