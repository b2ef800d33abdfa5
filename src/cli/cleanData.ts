import { loadConfig } from '../config.js';
import { EmbeddedBusyError, removeLocalData } from '../db/embedded.js';

// `make clean-data`: the local database and every folder Tally put in the temporary folder for
// this checkout (a fallback data folder, a copy of the PostgreSQL binaries, killed ephemeral runs).

try {
  await removeLocalData(loadConfig().dataDir, (message) => process.stdout.write(`${message}\n`));
} catch (error) {
  process.stderr.write(`${error instanceof EmbeddedBusyError ? error.message : (error as Error).stack}\n`);
  process.exit(1);
}
