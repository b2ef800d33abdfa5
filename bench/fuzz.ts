import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { migrate } from '../src/db/migrate.js';
import { connect } from '../src/db/sql.js';
import { runFuzz, type FuzzReport } from '../test/fuzz/runner.js';

// `make fuzz`: the fuzz suite of `make test`, longer (FUZZ_REQUESTS, default 20,000), on a fresh
// embedded PostgreSQL. Prints the summary and writes it to bench/results/fuzz.{md,json};
// `--case N` replays one case of the seed. Exits non-zero when any check fails.

const { values } = parseArgs({ options: { case: { type: 'string' } } });
const requests = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const seed = Number(process.env.FUZZ_SEED ?? 20261124);

const postgres = await startEmbeddedPostgres({ dataDir: '', ephemeral: true, fast: true });
const url = await ensureDatabase(postgres.url, 'tally_fuzz');
const sql = connect(url, { max: 1 });
await migrate(sql);
await sql.end();

let report: FuzzReport;
try {
  report = await runFuzz({
    databaseUrl: url,
    requests,
    seed,
    concurrency: 8,
    onlyCase: values.case === undefined ? undefined : Number(values.case),
  });
} finally {
  await postgres.stop();
}

const verdicts = {
  'typed refusals only (no 5xx, no internal error, a catalogue code on every error)': report.failures.length === 0,
  'nothing written (every table and every listing unchanged)': report.databaseUnchanged && report.listingsUnchanged,
  'healthy afterwards (/readyz 200)': report.healthyAfter,
  'RSS within 2x of its value after warm-up': report.rssMiB.max <= 2 * report.rssMiB.start,
  'p99 latency under 1 s': report.latencyMs.p99 < 1000,
  'every billing operation and GraphQL root field reached':
    report.coverage.restOperationsHit === report.coverage.restOperations &&
    report.coverage.graphqlFieldsHit === report.coverage.graphqlFields &&
    report.coverage.sandboxOperationsHit === report.coverage.sandboxOperations,
};
const table = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `| ${key} | ${n} |`);
const markdown = [
  '# Fuzz run (`make fuzz`)',
  '',
  `Run ${new Date().toISOString()}: ${report.requests} requests, seed ${report.seed}, ${report.concurrency} concurrent, ${report.durationSeconds} s.`,
  '',
  ...Object.entries(verdicts).map(([check, ok]) => `- ${ok ? 'PASS' : 'FAIL'}: ${check}`),
  '',
  `Latency: p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms. ` +
    `Server RSS: ${report.rssMiB.start} MiB after warm-up, ${report.rssMiB.end} MiB at the end, ${report.rssMiB.max} MiB at most.`,
  '',
  `Coverage: ${report.coverage.restOperationsHit}/${report.coverage.restOperations} billing operations (both route forms), ` +
    `${report.coverage.graphqlFieldsHit}/${report.coverage.graphqlFields} GraphQL root fields, ` +
    `${report.coverage.sandboxOperationsHit}/${report.coverage.sandboxOperations} sandbox admin operations.`,
  '',
  '| Status | Requests |',
  '|---|---:|',
  ...table(report.byStatus),
  '',
  '| Error code | Occurrences |',
  '|---|---:|',
  ...table(report.byCode),
  '',
  '| Kind of bad request | Requests |',
  '|---|---:|',
  ...table(report.byKind),
  '',
  `Failures: ${report.failures.length}.`,
  ...report.failures
    .slice(0, 20)
    .map((f) => `- case ${f.case} (${f.kind}, ${f.method} ${f.path}): ${f.problems.join('; ')}`),
  '',
].join('\n');
process.stdout.write(markdown);
if (values.case === undefined) {
  const dir = path.join(import.meta.dirname, 'results');
  fs.writeFileSync(path.join(dir, 'fuzz.md'), markdown);
  fs.writeFileSync(
    path.join(dir, 'fuzz.json'),
    `${JSON.stringify({ ...report, failures: report.failures.slice(0, 100) }, null, 2)}\n`,
  );
} else {
  process.stdout.write(`${JSON.stringify(report.failures, null, 2)}\n`);
}
process.exit(Object.values(verdicts).every(Boolean) ? 0 : 1);
