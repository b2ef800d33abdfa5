import { DomainError } from './errors.js';

// Structural rules of a stored ledger schema (chart of accounts + entry types) that the GraphQL
// types alone cannot express. Pure: the caller stores what passes.

export const MAX_CHART_DEPTH = 10;

type AccountNode = { key: string; type?: string | null; template?: boolean | null; children?: AccountNode[] | null };
type EntryType = { type: string; typeVersion?: number | null; lines?: { key: string }[] | null };
export type SchemaContent = {
  key: string;
  name?: string | null;
  chartOfAccounts: { accounts: AccountNode[]; defaultCurrencyMode?: string | null; defaultCurrency?: unknown };
  ledgerEntries?: { types: EntryType[] } | null;
};

/** Throws a BadRequest-class error naming the first broken rule; returns the chart's account paths. */
export function checkSchema(schema: SchemaContent): Set<string> {
  const chart = schema.chartOfAccounts;
  if (chart.defaultCurrencyMode === 'multi' && chart.defaultCurrency != null) {
    invalid('chartOfAccounts.defaultCurrency must be omitted when defaultCurrencyMode is multi.');
  }
  if (chart.defaultCurrencyMode === 'single' && chart.defaultCurrency == null) {
    invalid('chartOfAccounts.defaultCurrency is required when defaultCurrencyMode is single.');
  }
  const paths = new Set<string>();
  const walk = (accounts: AccountNode[], parentPath: string, depth: number) => {
    if (depth > MAX_CHART_DEPTH) invalid(`The chart of accounts is deeper than ${MAX_CHART_DEPTH} levels at ${parentPath}.`);
    const seen = new Set<string>();
    for (const account of accounts) {
      if (seen.has(account.key)) invalid(`Duplicate account key '${account.key}' under ${parentPath || 'the root'}.`);
      seen.add(account.key);
      if (depth === 1 && !account.type) invalid(`Top-level account '${account.key}' needs a type.`);
      const path = parentPath ? `${parentPath}/${account.key}` : account.key;
      paths.add(path);
      walk(account.children ?? [], path, depth + 1);
    }
  };
  walk(chart.accounts, '', 1);

  const entryTypes = new Set<string>();
  for (const entry of schema.ledgerEntries?.types ?? []) {
    const id = `${entry.type}@${entry.typeVersion ?? 1}`;
    if (entryTypes.has(id)) invalid(`Entry type '${entry.type}' version ${entry.typeVersion ?? 1} is defined twice.`);
    entryTypes.add(id);
    const lineKeys = new Set<string>();
    for (const line of entry.lines ?? []) {
      if (lineKeys.has(line.key)) invalid(`Entry type '${entry.type}' has two lines with key '${line.key}'.`);
      lineKeys.add(line.key);
    }
  }
  return paths;
}

/** A new version may add accounts but not remove them: ledgers on the schema already hold them. */
export function checkCompatible(previousPaths: Set<string>, nextPaths: Set<string>): void {
  const removed = [...previousPaths].filter((path) => !nextPaths.has(path));
  if (removed.length > 0) {
    invalid(`A schema update cannot remove accounts; missing: ${removed.slice(0, 5).join(', ')}.`);
  }
}

function invalid(message: string): never {
  throw new DomainError('invalid_input_provided', message);
}
