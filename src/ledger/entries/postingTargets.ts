import { findPostingTargets, type PostingTarget, type TargetQuery } from '../../db/postingLookup.js';
import type { Sql } from '../../db/sql.js';
import type { SandboxRequest } from '../../http/context.js';
import {
  DEFAULT_POSTING_TARGET_CACHE,
  postingTargetCache,
  type PostingTargetCacheOptions,
} from './postingTargetCache.js';

// The lookups of entries that arrive together share one statement: under load, the requests
// read in one turn of the event loop each need their ledger and accounts, and one round trip
// for all of them costs the server and PostgreSQL little more than one for each. Each answer is
// what a lookup alone would read at that moment; a failed statement is retried per lookup, so
// one request's trouble is never another's. What lookups read is held (postingTargetCache.ts) and
// answers the next entries without a statement; a posting prepared from a stale revision of its
// ledger is refused by the database and prepared again (staleTargets.ts).

export type PostingTargets = {
  find(query: TargetQuery): Promise<PostingTarget | undefined>;
  /** The same lookups, past what is held: every find reads the database (and keeps what it read). */
  fresh(): PostingTargets;
  /** Forgets what is held of a ledger: a posting found it changed. */
  forget(workspaceId: string, ledgerId: string): void;
  /** Accounts held in memory, and one for each ledger (postingTargetCache.ts). */
  held(): number;
};

/** What preparing and posting entries needs of a request: the database, shared lookups, and (in the sandbox) its workspace's clock. */
export type PostingContext = { sql: Sql; postingTargets: PostingTargets; sandbox?: SandboxRequest };

type Waiting = {
  query: TargetQuery;
  resolve: (target: PostingTarget | undefined) => void;
  reject: (error: unknown) => void;
};

/** Lookups in one statement at most: bounds the statement's size, not the wait. */
const MAX_LOOKUPS = 128;
/** Statements in flight at once; arrivals meanwhile form the next. */
const MAX_IN_FLIGHT = 2;

/** `cache: false` looks every entry's targets up. */
export function postingTargets(sql: Sql, options: { cache?: PostingTargetCacheOptions | false } = {}): PostingTargets {
  const cacheOptions = options.cache ?? DEFAULT_POSTING_TARGET_CACHE;
  const cache = cacheOptions ? postingTargetCache(cacheOptions) : undefined;
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || inFlight >= MAX_IN_FLIGHT || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (inFlight < MAX_IN_FLIGHT && waiting.length > 0) void look(waiting.splice(0, MAX_LOOKUPS));
    });
  };

  const answer = (item: Waiting, target: PostingTarget | undefined) => {
    if (target) cache?.keep(target);
    item.resolve(target);
  };

  const look = async (batch: Waiting[]) => {
    inFlight++;
    try {
      const targets = await findPostingTargets(
        sql,
        batch.map((item) => item.query),
      );
      batch.forEach((item, index) => answer(item, targets[index]));
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error);
      else
        await Promise.all(
          batch.map((item) =>
            findPostingTargets(sql, [item.query]).then(([target]) => answer(item, target), item.reject),
          ),
        );
    } finally {
      inFlight--;
      schedule();
    }
  };

  const lookUp = (query: TargetQuery) =>
    new Promise<PostingTarget | undefined>((resolve, reject) => {
      waiting.push({ query, resolve, reject });
      schedule();
    });
  const forget = (workspaceId: string, ledgerId: string) => cache?.forget(workspaceId, ledgerId);
  const held = () => cache?.size() ?? 0;
  const fresh: PostingTargets = { find: lookUp, fresh: () => fresh, forget, held };
  return {
    find(query) {
      const target = cache?.find(query);
      return target ? Promise.resolve(target) : lookUp(query);
    },
    fresh: () => fresh,
    forget,
    held,
  };
}
