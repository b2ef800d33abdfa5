import { domainErrorFromDatabase } from '../../db/errors.js';
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
// one request's trouble is never another's. What the lookups read is cached (postingTargetCache.ts)
// while this process hears the database's notices of changed ledgers and accounts.

export type PostingTargets = {
  find(query: TargetQuery): Promise<PostingTarget | undefined>;
  /** Accounts held in memory. */
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

/** The channel the triggers of ledgers and ledger_accounts notify, with '<workspace id> <ledger id>'. */
export const POSTING_TARGET_CHANNEL = 'tally_posting_targets';

export type PostingTargetsOptions = {
  /** false: every entry looks its targets up (a connection pooler that drops LISTEN, say). */
  cache?: PostingTargetCacheOptions | false;
  log?: (message: string) => void;
};

export function postingTargets(sql: Sql, options: PostingTargetsOptions = {}): PostingTargets {
  const cacheOptions = options.cache ?? DEFAULT_POSTING_TARGET_CACHE;
  const cache = cacheOptions ? postingTargetCache(cacheOptions) : undefined;
  /** Set once the notices are heard: until then (or with no cache) every entry looks up. */
  let listening = false;
  if (cache) {
    sql
      .listen(
        POSTING_TARGET_CHANNEL,
        (notice) => {
          const space = notice.indexOf(' ');
          cache.drop(notice.slice(0, space), notice.slice(space + 1));
        },
        // On every (re)connection: notices sent while not listening are lost, so nothing held stays.
        () => {
          cache.dropAll();
          listening = true;
        },
      )
      .catch((error: unknown) =>
        options.log?.(`posting targets are not cached: LISTEN failed (${(error as Error).message})`),
      );
  }
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

  const look = async (batch: Waiting[]) => {
    inFlight++;
    const epoch = cache?.epoch() ?? 0;
    try {
      const targets = await findPostingTargets(
        sql,
        batch.map((item) => item.query),
      );
      batch.forEach((item, index) => {
        const target = targets[index];
        if (target && listening) cache?.keep(item.query, target, epoch);
        item.resolve(target);
      });
    } catch (error) {
      // The database went away: a notice may be lost on the way back, so nothing held stays.
      if (domainErrorFromDatabase(error)?.code === 'service_unavailable') cache?.dropAll();
      if (batch.length === 1) batch[0].reject(error);
      else
        await Promise.all(
          batch.map((item) =>
            findPostingTargets(sql, [item.query]).then(([target]) => item.resolve(target), item.reject),
          ),
        );
    } finally {
      inFlight--;
      schedule();
    }
  };

  return {
    held: () => cache?.size() ?? 0,
    find(query) {
      const held = listening ? cache?.find(query) : undefined;
      if (held) return Promise.resolve(held);
      return new Promise((resolve, reject) => {
        waiting.push({ query, resolve, reject });
        schedule();
      });
    },
  };
}
