import { beforeAll, describe, expect, it } from 'vitest';
import { runCrash, type CrashReport } from './runner.js';

// The short crash run of `make test`: a real server on a durable PostgreSQL, killed with SIGKILL
// every couple of seconds (and PostgreSQL once) while clients write and retry by idempotency key.
// `make test-crash` runs the same suite longer and writes bench/results/crash.md (bench/crash.ts).

const SECONDS = Number(process.env.CRASH_SHORT_SECONDS ?? 15);
const SEED = Number(process.env.CRASH_SEED ?? 20261127);

let report: CrashReport;
beforeAll(async () => {
  report = await runCrash({
    seconds: SECONDS,
    seed: SEED,
    clients: 8,
    killEveryMs: 2000,
    recoveryLimitMs: 15_000,
    drainMs: 30_000,
  });
}, 240_000);

/** The checks named, with their problems, that failed: [] when all hold. */
const failing = (...ids: string[]) =>
  report.checks
    .filter((c) => ids.includes(c.id) && !c.pass)
    .map((c) => ({ check: c.name, detail: c.detail, problems: c.problems }));

describe(`crash: ${SECONDS} s of server kills, seed ${SEED} (make test-crash runs it longer)`, () => {
  it('gives every write a definite answer, and every answer is a success', () => {
    expect(failing('definite')).toEqual([]);
    expect(report.kills.server + report.kills.postgres).toBeGreaterThan(0);
  });

  it('keeps every acknowledged write exactly once, as sent, and nothing that no client sent', () => {
    expect(failing('entries', 'no-extra-entries', 'bank-feed', 'invoices', 'billing-transactions')).toEqual([]);
  });

  it('keeps balances equal to the acknowledged writes, in the database and through the API', () => {
    expect(failing('ledger-balances', 'api-balances', 'billing-balances')).toEqual([]);
  });

  it('passes the invariant checker (make admin ARGS=check)', () => {
    expect(failing('invariants')).toEqual([]);
  });

  it('is ready again within seconds of every kill, of the server and of PostgreSQL', () => {
    expect(failing('recovery', 'kills')).toEqual([]);
  });

  it('answers only typed failures, drains the balance fold, and stops cleanly', () => {
    expect(failing('typed-failures', 'fold-and-shutdown')).toEqual([]);
  });
});
