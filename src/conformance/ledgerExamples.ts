import fs from 'node:fs';
import path from 'node:path';

const EXAMPLES_DIR = path.resolve(import.meta.dirname, '../../spec/examples/ledger');

/** One example of spec/examples/ledger/: `<id>.graphql` (the operation) + `<id>.json` (the rest). */
export type LedgerExample = {
  id: string;
  query: string;
  description: string;
  requires: string[];
  variables: Record<string, unknown>;
  response: Record<string, unknown>;
  /** A replay: its response must carry exactly the ids of this earlier (required) example's response. */
  sameIdsAs?: string;
};

export function loadLedgerExamples(): LedgerExample[] {
  return fs
    .readdirSync(EXAMPLES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const id = file.slice(0, -'.json'.length);
      const spec = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'));
      return { id, query: fs.readFileSync(path.join(EXAMPLES_DIR, `${id}.graphql`), 'utf8'), ...spec };
    });
}
