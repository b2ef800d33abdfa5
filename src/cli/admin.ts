import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { checkLedgerInvariants } from '../db/ledgerChecks.js';
import { createClient, createWorkspace } from '../db/provision.js';
import { findWorkspace, listClients, listWorkspaces } from '../db/workspaces.js';

const USAGE = `Manage Tally workspaces and API clients (uses DATABASE_URL, or the embedded database in .data/).

  create-workspace --name <name>                 create a workspace; prints its id
  create-client --workspace <id> [--name <name>] create an API client; prints its id and secret (once)
  list-workspaces                                list workspaces
  list-clients                                   list API clients (never their secrets)
  check [--ledger <ledger id>]                   verify the ledger invariants (every ledger when none is
                                                 named); exits 1 and lists each violation when one fails
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, workspace: { type: 'string' }, ledger: { type: 'string' } },
  });
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig();
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    ephemeral: false,
    dataDir: config.dataDir,
    poolMax: 2,
    whenOwned: 'share',
    log: (message) => process.stderr.write(`${message}\n`),
  });
  try {
    switch (command) {
      case 'create-workspace': {
        if (!values.name) throw new UsageError('--name is required');
        process.stdout.write(`${await createWorkspace(database.sql, values.name)}\n`);
        return 0;
      }
      case 'create-client': {
        if (!values.workspace) throw new UsageError('--workspace is required');
        if (!(await findWorkspace(database.sql, values.workspace)))
          throw new UsageError(`no workspace ${values.workspace}`);
        const credential = await createClient(database.sql, values.workspace, { name: values.name });
        process.stdout.write(`client_id=${credential.clientId}\nclient_secret=${credential.clientSecret}\n`);
        return 0;
      }
      case 'list-workspaces':
        for (const row of await listWorkspaces(database.sql)) process.stdout.write(`${row.id}\t${row.name}\n`);
        return 0;
      case 'list-clients':
        for (const row of await listClients(database.sql))
          process.stdout.write(`${row.clientId}\t${row.workspaceId}\t${row.name}\n`);
        return 0;
      case 'check': {
        const violations = await checkLedgerInvariants(database.sql, values.ledger);
        for (const v of violations)
          process.stdout.write(`FAIL ${v.check}: ledger ${v.ledgerId}, ${v.subject}: ${v.detail}\n`);
        process.stdout.write(
          violations.length === 0 ? 'ok: every invariant holds\n' : `${violations.length} violation(s)\n`,
        );
        return violations.length === 0 ? 0 : 1;
      }
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } finally {
    await database.close();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      error instanceof UsageError
        ? `${error.message}\n\n${USAGE}`
        : `${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(2);
  },
);
