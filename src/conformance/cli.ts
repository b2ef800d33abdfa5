import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { junitReport, summary, textLine, textReport } from './report.js';
import { runConformance } from './run.js';

const USAGE = `Run every example of Tally's contracts (billing REST, ledger GraphQL) against a server.

  make conformance URL=<base url> CLIENT_ID=<id> CLIENT_SECRET=<secret> [ADMIN_TOKEN=<token>] [JUNIT=<file>]
  tally-conformance --url=<base url> --client-id=<id> --client-secret=<secret> [--admin-token=<token>] [--junit=<file>] [--filter=<text>]

(Write options with =: a generated secret may begin with '-'.)

With the admin token of a Tally sandbox every example runs in a fresh workspace of its own.
Without it, examples run in the client's workspace (give a fresh one): those that write are skipped.
Prints one line per example and the totals; exits 1 when any example fails.
`;

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'admin-token': { type: 'string' },
      junit: { type: 'string' },
      filter: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const env = process.env;
  const baseUrl = (values.url ?? env.URL ?? '').replace(/\/+$/, '');
  const clientId = values['client-id'] ?? env.CLIENT_ID;
  const clientSecret = values['client-secret'] ?? env.CLIENT_SECRET;
  if (values.help || !baseUrl || !clientId || !clientSecret) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const results = await runConformance({
    baseUrl,
    clientId,
    clientSecret,
    adminToken: values['admin-token'] ?? (env.ADMIN_TOKEN || undefined),
    filter: values.filter ?? (env.FILTER || undefined),
    onResult: (result) => process.stdout.write(`${textLine(result)}\n`),
  });
  const junit = values.junit ?? (env.JUNIT || undefined);
  if (junit) fs.writeFileSync(junit, junitReport(results));
  process.stdout.write(textReport(results).split('\n').slice(results.length).join('\n'));
  return summary(results).fail > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
