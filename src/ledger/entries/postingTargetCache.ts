import type { LedgerAccountRow } from '../../db/ledgerAccounts.js';
import type { PostingTarget, TargetQuery } from '../../db/postingLookup.js';

// The posting targets this process has read, per ledger: the ledger row and the accounts entries
// named, by id, path and ik. What a lookup read is kept only if nothing changed meanwhile (the
// epoch), a ledger is read again after MAX_AGE_MS whatever happens, and a notice that a ledger or
// one of its accounts changed drops that ledger (postingTargets.ts listens for them).

type HeldLedger = { ledger: PostingTarget['ledger']; accounts: Map<string, LedgerAccountRow>; heldSince: number };

export type PostingTargetCacheOptions = {
  /** Accounts held at most across ledgers; past it, everything is dropped and read again. */
  maxAccounts: number;
  /** A ledger is read again after this long, even with no notice: a bound on any missed one. */
  maxAgeMs: number;
  now?: () => number;
};

export type PostingTargetCache = {
  /** The target when the ledger and every account the query names are held; else undefined. */
  find(query: TargetQuery): PostingTarget | undefined;
  /** The epoch to give `keep` for a lookup starting now. */
  epoch(): number;
  /** Keeps what a lookup that started at `epoch` read, unless a ledger was dropped since. */
  keep(query: TargetQuery, target: PostingTarget, epoch: number): void;
  /** Drops one ledger (a notice: '<workspace id> <ledger id>'), or everything. */
  drop(workspaceId: string, ledgerId: string): void;
  dropAll(): void;
  /** Accounts held, for tests and metrics. */
  size(): number;
};

/** Held accounts at most by default (860 bytes each, measured), and how long a ledger is held without a notice. */
export const DEFAULT_POSTING_TARGET_CACHE: PostingTargetCacheOptions = { maxAccounts: 50_000, maxAgeMs: 30_000 };

const ref = (kind: 'id' | 'path' | 'ik', value: string) => `${kind}\u0000${value}`;
const ledgerKey = (workspaceId: string, kind: 'id' | 'ik', value: string) =>
  `${workspaceId}\u0000${kind}\u0000${value}`;

export function postingTargetCache(options: PostingTargetCacheOptions): PostingTargetCache {
  const now = options.now ?? Date.now;
  /** By workspace and ledger id, and by workspace and ledger ik (the same object). */
  const ledgers = new Map<string, HeldLedger>();
  let accounts = 0;
  let epoch = 0;

  const held = (query: TargetQuery): HeldLedger | undefined => {
    const { workspaceId, match } = query;
    const found =
      match.id != null
        ? ledgers.get(ledgerKey(workspaceId, 'id', match.id))
        : match.ik != null
          ? ledgers.get(ledgerKey(workspaceId, 'ik', match.ik))
          : undefined;
    if (!found || (match.ik != null && found.ledger.ik !== match.ik)) return undefined;
    if (now() - found.heldSince > options.maxAgeMs) {
      forget(found);
      return undefined;
    }
    return found;
  };

  const forget = (entry: HeldLedger) => {
    const { workspaceId, id, ik } = entry.ledger;
    if (ledgers.get(ledgerKey(workspaceId, 'id', id)) === entry) ledgers.delete(ledgerKey(workspaceId, 'id', id));
    if (ledgers.get(ledgerKey(workspaceId, 'ik', ik)) === entry) ledgers.delete(ledgerKey(workspaceId, 'ik', ik));
    accounts -= new Set(entry.accounts.values()).size;
  };

  const dropAll = () => {
    ledgers.clear();
    accounts = 0;
    epoch++;
  };

  return {
    find(query) {
      const entry = held(query);
      if (!entry) return undefined;
      const named: LedgerAccountRow[] = [];
      for (const [kind, values] of [
        ['id', query.ids],
        ['path', query.paths],
        ['ik', query.iks],
      ] as const) {
        for (const value of values) {
          const account = entry.accounts.get(ref(kind, value));
          if (!account) return undefined;
          named.push(account);
        }
      }
      return { ledger: entry.ledger, accounts: named };
    },
    epoch: () => epoch,
    keep(query, target, since) {
      if (since !== epoch) return;
      const { ledger } = target;
      let entry = held(query);
      if (!entry || entry.ledger.id !== ledger.id) {
        entry = { ledger, accounts: new Map(), heldSince: now() };
        ledgers.set(ledgerKey(ledger.workspaceId, 'id', ledger.id), entry);
        ledgers.set(ledgerKey(ledger.workspaceId, 'ik', ledger.ik), entry);
      }
      for (const account of target.accounts) {
        if (!entry.accounts.has(ref('id', account.id))) accounts++;
        entry.accounts.set(ref('id', account.id), account);
        entry.accounts.set(ref('path', account.path), account);
        entry.accounts.set(ref('ik', account.ik), account);
      }
      if (accounts > options.maxAccounts) dropAll();
    },
    drop(workspaceId, ledgerId) {
      epoch++;
      const entry = ledgers.get(ledgerKey(workspaceId, 'id', ledgerId));
      if (entry) forget(entry);
    },
    dropAll,
    size: () => accounts,
  };
}
