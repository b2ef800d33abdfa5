// PostgreSQL breaks a deadlock by failing one transaction (40P01), which it rolled back whole:
// running it again is safe. Locks are taken in one global order, so this is a safety net.

/** Runs `run` again when PostgreSQL chose it as a deadlock victim, up to `attempts` times. */
export async function retryingDeadlocks<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= attempts || (error as { code?: string }).code !== '40P01') throw error;
    }
  }
}
