import { graphql } from '../api.js';
import { h } from '../dom.js';
import { formatInstant } from '../format.js';
import { pagedTable, type Page } from '../paging.js';
import { LEDGERS } from '../queries.js';
import { link } from '../router.js';
import { code, heading } from '../view.js';

export type LedgerSummary = {
  id: string;
  name: string;
  ik: string;
  type: string;
  created: string;
  balanceUTCOffset: string;
  schema: { key: string; name: string } | null;
  migrations: { nodes: { status: string; schemaVersion: { version: number } }[] };
};

/** "wallet-app v3", with the migration's status when it has not completed. */
export function schemaVersion(ledger: Pick<LedgerSummary, 'schema' | 'migrations'>): string {
  if (!ledger.schema) return 'no schema';
  const migration = ledger.migrations.nodes[0];
  if (!migration) return ledger.schema.key;
  const status = migration.status === 'completed' ? '' : ` (${migration.status})`;
  return `${ledger.schema.key} v${migration.schemaVersion.version}${status}`;
}

export async function ledgersPage(): Promise<HTMLElement> {
  return h(
    'div',
    null,
    heading('Workspace', 'Ledgers'),
    await pagedTable<LedgerSummary>({
      caption: 'Ledgers, newest first',
      head: ['Name', 'Ik', 'Schema', 'UTC offset', 'Type', 'Created'],
      testId: 'ledgers',
      load: async (after) => (await graphql<{ ledgers: Page<LedgerSummary> }>(LEDGERS, { after })).ledgers,
      row: (ledger) => [
        link({ page: 'ledger', ledgerId: ledger.id }, ledger.name),
        code(ledger.ik),
        schemaVersion(ledger),
        ledger.balanceUTCOffset,
        ledger.type,
        formatInstant(ledger.created),
      ],
    }),
  );
}
