import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { runFuzz, type FuzzReport } from './runner.js';

// The short fuzz run of `make test`; `make fuzz` runs the same suite longer (bench/fuzz.ts).

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);

let db: TestDatabase;
let report: FuzzReport;
beforeAll(async () => {
  db = await createTestDatabase();
  report = await runFuzz({ databaseUrl: db.url, requests: REQUESTS, seed: SEED, concurrency: 8 });
}, 300_000);
afterAll(() => db?.drop());

describe(`fuzz: ${REQUESTS} bad requests, seed ${SEED} (replay one with FUZZ_SEED and bench/fuzz.ts --case N)`, () => {
  it('answers every one with a typed refusal: no 5xx, no internal error, a catalogue code on every error', () => {
    expect(report.failures.slice(0, 10), `the server logged:\n${report.serverTrouble.join('\n')}`).toEqual([]);
  });

  it('writes nothing: every table and every listing is as before', () => {
    expect(report.databaseUnchanged).toBe(true);
    expect(report.listingsUnchanged).toBe(true);
  });

  // Latency is measured by `make fuzz` (bench/results/fuzz.md), not asserted on a shared machine.
  it('stays healthy and within 2x of its memory after warm-up', () => {
    expect(report.healthyAfter).toBe(true);
    expect(report.rssMiB.max).toBeLessThanOrEqual(2 * report.rssMiB.start);
  });

  it('reaches every billing operation, every GraphQL root field, every sandbox admin operation and the dashboard', () => {
    expect(report.coverage.restOperationsHit).toBe(report.coverage.restOperations);
    expect(report.byOperation.dashboard).toBeGreaterThan(0);
    expect(report.coverage.graphqlFieldsHit).toBe(report.coverage.graphqlFields);
    expect(report.coverage.sandboxOperationsHit).toBe(report.coverage.sandboxOperations);
  });
});
