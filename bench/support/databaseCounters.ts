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
  const tuplesBefore = process.env.BENCH_STATEMENTS ? await tupleCounts(sql) : new Map<string, number[]>();
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
      console.log(`    WAL per entry by relation: ${await walByRelation(sql, start, end, entries)}`);
      console.log(
        `    rows per entry (inserted/updated/HOT/deleted): ${tupleChanges(tuplesBefore, await tupleCounts(sql), entries)}`,
      );
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

/** WAL records and bytes per entry by the relation each block reference names (pg_walinspect), the costliest first. */
async function walByRelation(sql: Sql, start: string, end: string, entries: number): Promise<string> {
  const rows = await sql<{ relation: string; records: number; bytes: number }[]>`
    select coalesce(c.relname, b.relfilenode::text) as relation,
           round(count(*)::numeric / ${entries}, 2)::float as records,
           round(sum(b.block_data_length + b.block_fpi_length)::numeric / ${entries})::float as bytes
    from pg_get_wal_block_info(${start}::pg_lsn, ${end}::pg_lsn) b
    left join pg_class c on c.relfilenode = b.relfilenode
    group by 1 order by 2 desc limit 14`.catch((error: Error) => [{ relation: error.message, records: 0, bytes: 0 }]);
  return rows.map((row) => `${row.relation} ${row.records} (${row.bytes} B)`).join(', ');
}

/** Each table's inserted, updated, HOT-updated and deleted row counts so far (pg_stat_user_tables). */
async function tupleCounts(sql: Sql): Promise<Map<string, number[]>> {
  const rows = await sql<{ relname: string; counts: string[] }[]>`
    select relname, array[n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del]::text[] as counts from pg_stat_user_tables`;
  return new Map(rows.map((row) => [row.relname, row.counts.map(Number)]));
}

function tupleChanges(before: Map<string, number[]>, after: Map<string, number[]>, entries: number): string {
  return [...after]
    .map(
      ([table, counts]) =>
        [table, counts.map((count, i) => (count - (before.get(table)?.[i] ?? 0)) / entries)] as const,
    )
    .filter(([, changes]) => changes.some((change) => change > 0.01))
    .map(([table, changes]) => `${table} ${changes.map((change) => change.toFixed(2)).join('/')}`)
    .join(', ');
}
