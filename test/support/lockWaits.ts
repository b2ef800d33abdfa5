import type postgres from 'postgres';

/** Waits until `count` of this database's backends wait on a lock, or `done()` says there is no need. */
export async function waitingOnLocks(sql: postgres.Sql, count: number, done = () => false): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const [{ n }] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if (n >= count || done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`fewer than ${count} backends waited on a lock`);
}
