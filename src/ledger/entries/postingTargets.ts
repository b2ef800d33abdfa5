import { findPostingTargets, type PostingTarget, type TargetQuery } from '../../db/postingLookup.js';
import type { Sql } from '../../db/sql.js';
import type { SandboxRequest } from '../../http/context.js';

// The lookups of entries that arrive together share one statement: under load, the requests
// read in one turn of the event loop each need their ledger and accounts, and one round trip
// for all of them costs the server and PostgreSQL little more than one for each. Each answer is
// what a lookup alone would read at that moment; a failed statement is retried per lookup, so
// one request's trouble is never another's.

export type PostingTargets = {
  find(query: TargetQuery): Promise<PostingTarget | undefined>;
};

/** What preparing an entry reads with: the pool, and the shared lookups over it. */
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

export function postingTargets(sql: Sql): PostingTargets {
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
    try {
      const targets = await findPostingTargets(
        sql,
        batch.map((item) => item.query),
      );
      batch.forEach((item, index) => item.resolve(targets[index]));
    } catch (error) {
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
    find(query) {
      return new Promise((resolve, reject) => {
        waiting.push({ query, resolve, reject });
        schedule();
      });
    },
  };
}
