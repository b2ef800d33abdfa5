import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { crashMarkdown, runCrash } from '../test/crash/runner.js';

// `make test-crash`: the crash suite of `make test`, longer. A real Tally process on a durable
// PostgreSQL, clients retrying every write by its idempotency key, the server killed with SIGKILL
// every few seconds and PostgreSQL once; then every acknowledged write must be there exactly once
// and nothing else. Prints the summary, writes bench/results/crash.{md,json} (unless --no-write),
// and exits non-zero when a check fails.
//
// CRASH_SECONDS (60), CRASH_SEED (20261127), CRASH_CLIENTS (12), CRASH_KILL_EVERY_MS (3000),
// CRASH_RECOVERY_LIMIT_MS (15000); the same as flags: --seconds, --seed, --clients, --kill-every-ms.

const { values } = parseArgs({
  options: {
    seconds: { type: 'string' },
    seed: { type: 'string' },
    clients: { type: 'string' },
    'kill-every-ms': { type: 'string' },
    'recovery-limit-ms': { type: 'string' },
    'no-write': { type: 'boolean' },
  },
});
const number = (flag: string | undefined, variable: string, fallback: number) => {
  const value = Number(flag ?? process.env[variable] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`${variable} must be a positive number\n`);
    process.exit(2);
  }
  return value;
};

const options = {
  seconds: number(values.seconds, 'CRASH_SECONDS', 60),
  seed: number(values.seed, 'CRASH_SEED', 20261127),
  clients: number(values.clients, 'CRASH_CLIENTS', 12),
  killEveryMs: number(values['kill-every-ms'], 'CRASH_KILL_EVERY_MS', 3000),
  recoveryLimitMs: number(values['recovery-limit-ms'], 'CRASH_RECOVERY_LIMIT_MS', 15_000),
};

// Interrupted: exit through the runner's exit hook, which stops the server and PostgreSQL.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const report = await runCrash({ ...options, log: (message) => process.stderr.write(`[crash] ${message}\n`) });
const markdown = crashMarkdown(report);
process.stdout.write(markdown);
if (!values['no-write']) {
  const dir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'crash.md'), markdown);
  fs.writeFileSync(path.join(dir, 'crash.json'), `${JSON.stringify(report, null, 2)}\n`);
}
process.exit(report.pass ? 0 : 1);
