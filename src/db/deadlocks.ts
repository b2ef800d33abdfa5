// PostgreSQL breaks a deadlock by failing one transaction (40P01), which it rolled back whole:
// running it again is safe. Locks are taken in one global order, so this is a safety net.

/** Runs `run` again when PostgreSQL chose it as a deadlock victim, up to `attempts` times. */
export async function retryingDeadlocks<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  return retryingOn(['40P01'], run, attempts);
}

/**
 * Runs a transaction that deletes a workspace's rows table by table again when a write racing it
 * committed a row whose parent it then deleted (23503: READ COMMITTED shows each statement the
 * rows committed before it) or chose it as a deadlock victim. Each attempt is rolled back whole.
 */
export async function retryingRaces<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  return retryingOn(['23503', '40P01'], run, attempts);
}

/** Runs `run` again while it fails with one of these SQLSTATEs (a transaction rolled back whole), up to `attempts` times. */
export async function retryingOn<T>(codes: string[], run: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || !codes.includes((error as { code?: string }).code ?? '')) throw error;
    }
  }
}
