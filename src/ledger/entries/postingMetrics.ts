import { entriesPosted, postingDuration } from '../../observability/metrics.js';

// Every mutation that writes entries reports through here, so /metrics counts each written entry
// once whichever path wrote it, and times refused and failed postings as well as written ones.

/** Runs a posting under the posting timer, which stops however the posting ends. */
export async function timedPosting<T>(post: () => Promise<T>): Promise<T> {
  const stop = postingDuration.startTimer();
  try {
    return await post();
  } finally {
    stop();
  }
}

/** Counts entries written (replays write nothing and are not counted). */
export function countEntriesWritten(count: number): void {
  if (count > 0) entriesPosted.inc(count);
}
