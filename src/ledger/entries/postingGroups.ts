import { postLedgerEntries, type PostingOutcome } from '../../db/ledgerEntries.js';
import type { Sql } from '../../db/sql.js';
import { groupedEntries, postingGroupsRetried, postingGroupsWritten } from '../../observability/metrics.js';
import { plannedAccountsOf, postAlone } from './postEntry.js';
import { DEFAULT_POSTING_GROUPS, type PostingGroupOptions } from './postingGroupOptions.js';
import type { PreparedEntry } from './prepareEntry.js';

// Group commit: entries that arrive while earlier groups are being written wait for the next
// group, which posts them all in one statement and one commit (one WAL flush instead of one per
// entry). Each entry keeps the answer it would get alone; a group that fails as a whole (an
// error that is not a refusal of one entry) is posted again entry by entry.

export type PostingGroups = {
  /** Posts the entry with the next group; answers its own outcome. */
  post(prepared: PreparedEntry): Promise<PostingOutcome>;
};

type Waiting = {
  prepared: PreparedEntry;
  resolve: (outcome: PostingOutcome) => void;
  reject: (error: unknown) => void;
};

export function postingGroups(sql: Sql, options: PostingGroupOptions = DEFAULT_POSTING_GROUPS): PostingGroups {
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  // Entries that arrive in the same turn of the event loop join one group; while maxInFlight
  // groups are being written, arrivals wait and form the next.
  const schedule = () => {
    if (scheduled || inFlight >= options.maxInFlight || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      while (inFlight < options.maxInFlight && waiting.length > 0) {
        void write(nextGroup(waiting, options.maxEntries));
      }
    });
  };

  const write = async (group: Waiting[]) => {
    inFlight++;
    postingGroupsWritten.inc();
    groupedEntries.inc(group.length);
    try {
      const outcomes = await postGroup(
        sql,
        group.map((item) => item.prepared),
      );
      group.forEach((item, index) => item.resolve(outcomes[index]));
    } catch {
      postingGroupsRetried.inc();
      // Something failed the whole statement (a balance out of range, a deadlock): each entry alone.
      await Promise.all(group.map((item) => postAlone(sql, item.prepared).then(item.resolve, item.reject)));
    } finally {
      inFlight--;
      schedule();
    }
  };

  return {
    post(prepared) {
      if (options.maxEntries === 1) return postAlone(sql, prepared);
      return new Promise<PostingOutcome>((resolve, reject) => {
        waiting.push({ prepared, resolve, reject });
        schedule();
      });
    },
  };
}

/**
 * Takes up to `max` waiting entries, in arrival order, for one group. An entry whose ik is
 * already in the group waits for the next one: posted after its twin, it replays it (or posts,
 * if the twin was refused), exactly as if each were posted alone.
 */
function nextGroup(waiting: Waiting[], max: number): Waiting[] {
  const group: Waiting[] = [];
  const iks = new Set<string>();
  for (let index = 0; index < waiting.length && group.length < max;) {
    const { workspaceId, ledgerId, ik } = waiting[index].prepared.posting;
    const key = `${workspaceId}\u0000${ledgerId}\u0000${ik}`;
    if (iks.has(key)) {
      index++;
      continue;
    }
    iks.add(key);
    group.push(...waiting.splice(index, 1));
  }
  return group;
}

async function postGroup(sql: Sql, prepared: readonly PreparedEntry[]): Promise<PostingOutcome[]> {
  if (prepared.length === 1) return [await postAlone(sql, prepared[0])];
  return postLedgerEntries(
    sql,
    prepared.map((entry) => entry.posting),
    plannedAccountsOf(prepared),
  );
}
