import type { Chart } from '../../core/chart.js';
import type { SchemaContent } from '../../core/ledgerSchemas.js';
import type { NewDataMigration } from '../../db/ledgerMigrations.js';

// What a schema version leaves to migrate in the ledgers that move to it: entries of an entry
// type version the schema superseded (it defines a higher version of the type, or archives or
// disables that one), and entries on chart accounts it archives or disables.

export function dataMigrationsOf(content: SchemaContent, chart: Chart, schemaVersion: number): NewDataMigration[] {
  const types = content.ledgerEntries?.types ?? [];
  const latest = new Map<string, number>();
  for (const type of types) latest.set(type.type, Math.max(latest.get(type.type) ?? 0, type.typeVersion ?? 1));
  const entries: NewDataMigration[] = types
    .filter(
      (type) =>
        (type.typeVersion ?? 1) < latest.get(type.type)! || type.status === 'archived' || type.status === 'disabled',
    )
    .map((type) => ({
      kind: 'entry',
      subject: `${type.type}@${type.typeVersion ?? 1}`,
      entryType: type.type,
      typeVersion: type.typeVersion ?? 1,
      accountPath: null,
      schemaVersion,
    }));
  const accounts: NewDataMigration[] = [...chart.accounts.values()]
    .filter((account) => account.status !== 'active')
    .map((account) => ({
      kind: 'account',
      subject: account.chartPath,
      entryType: null,
      typeVersion: null,
      accountPath: account.chartPath,
      schemaVersion,
    }));
  return [...entries, ...accounts];
}
