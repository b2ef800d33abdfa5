import type { Sql } from '../../src/db/sql.js';

// What a benchmark reads from PostgreSQL about a run: where the backends were (pg_stat_activity
// samples), WAL written (pg_walinspect between two LSNs) and statements run (pg_stat_statements).

/** WAL and statements per entry of one run. */
export type DatabaseFigures = {
  /** WAL written per entry (pg_walinspect: every record between the run's first and last LSN, the fold's included). */
  walBytesPerEntry: number;
  walRecordsPerEntry: number;
  /** WAL records per entry by resource manager, the five most frequent. */
  walRecordsByKind: string;
  /** Top-level statements per entry (pg_stat_statements), the fold's and the benchmark's own excluded: round trips. */
  statementsPerEntry: number;
};

/** Samples what Tally's backends are doing until stopped: busy, waiting on what, or idle in a transaction. */
export function sampleBackends(sql: Sql): () => Promise<string> {
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await sql<{ what: string; n: number }[]>`
        select coalesce(wait_event_type || ':' || wait_event, state) as what, count(*)::int as n from pg_stat_activity
        where application_name = 'tally' and backend_type = 'client backend' and state <> 'idle'
          and pid <> pg_backend_pid() group by 1`;
      samples++;
      for (const row of rows) counts.set(row.what, (counts.get(row.what) ?? 0) + row.n);
      if (process.env.BENCH_SLOW) {
        const slow =
          await sql`select pid, backend_type, state, wait_event_type, wait_event, now() - query_start as age, pg_blocking_pids(pid) as blockers, left(query, 80) as q
          from pg_stat_activity where state <> 'idle' and now() - query_start > interval '1 second' and pid <> pg_backend_pid()`;
        for (const row of slow) console.log('SLOW', JSON.stringify(row));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([what, n]) => `${what} ${(n / samples).toFixed(1)}`)
      .join(', ');
  };
}

/** Starts counting WAL (pg_walinspect, between two LSNs) and statements; the function returned answers them per entry. */
export async function databaseCounters(sql: Sql): Promise<(entries: number) => Promise<DatabaseFigures>> {
  await sql`select pg_stat_statements_reset()`;
  const [{ start }] = await sql<{ start: string }[]>`select pg_current_wal_insert_lsn()::text as start`;
  return async (entries) => {
    const [{ end, bytes }] = await sql<{ end: string; bytes: string }[]>`
      select pg_current_wal_insert_lsn()::text as end, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${start}::pg_lsn)::text as bytes`;
    await sql`select pg_switch_wal()`;
    // pg_walinspect reads flushed WAL only; the switch above flushes everything up to end.
    const kinds = await sql<{ kind: string; records: string }[]>`
      select "resource_manager/record_type" as kind, sum(count)::text as records
      from pg_get_wal_stats(${start}::pg_lsn, ${end}::pg_lsn) group by 1 order by sum(count) desc`.catch(() => []);
    const [statements] = await sql<{ calls: string }[]>`
      select coalesce(sum(calls), 0)::text as calls from pg_stat_statements
      where toplevel and query not like '%fold_ledger_balance_queue%' and query not like '%pg_stat%'
        and query not like '%pg_get_wal_stats%' and query not like '%pg_current_wal%'
        and dbid = (select oid from pg_database where datname = current_database())`;
    if (process.env.BENCH_STATEMENTS) {
      const top = await sql<{ calls: string; ms: string; plans: string; planMs: string; query: string }[]>`
        select calls::text, round(total_exec_time::numeric, 1)::text as ms, plans::text,
               round(total_plan_time::numeric, 1)::text as "planMs",
               left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 140) as query
        from pg_stat_statements order by total_exec_time + total_plan_time desc limit 16`;
      for (const row of top)
        console.log(`    ${row.calls} calls, ${row.ms} ms; ${row.plans} plans, ${row.planMs} ms: ${row.query}`);
    }
    const per = (value: number) => (entries > 0 ? Math.round((value / entries) * 10) / 10 : 0);
    return {
      walBytesPerEntry: Math.round(per(Number(bytes))),
      walRecordsPerEntry: per(kinds.reduce((sum, kind) => sum + Number(kind.records), 0)),
      walRecordsByKind: kinds
        .slice(0, 5)
        .map((kind) => `${kind.kind} ${per(Number(kind.records))}`)
        .join(', '),
      statementsPerEntry: per(Number(statements.calls)),
    };
  };
}
