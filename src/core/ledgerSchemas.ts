import { buildChart, resolvePath, type Chart, type ChartAccount, type ChartInput } from './chart.js';
import type { SchemaEntryType } from './entryTypes.js';
import { DomainError } from './errors.js';
import { checkTemplate, parseAmountExpression, placeholders } from './templates.js';

// Structural rules of a stored ledger schema (chart of accounts + entry types) that the GraphQL
// types alone cannot express. Pure: the caller stores what passes.

export const MAX_CHART_DEPTH = 10;

type AccountNode = { key: string; children?: AccountNode[] | null };
export type SchemaContent = {
  key: string;
  name?: string | null;
  chartOfAccounts: ChartInput;
  ledgerEntries?: { types: SchemaEntryType[] } | null;
};

/** Throws a BadRequest-class error naming the first broken rule; returns the flattened chart. */
export function checkSchema(schema: SchemaContent): Chart {
  const chart = schema.chartOfAccounts;
  if (chart.defaultCurrencyMode === 'multi' && chart.defaultCurrency != null) {
    invalid('chartOfAccounts.defaultCurrency must be omitted when defaultCurrencyMode is multi.');
  }
  if (chart.defaultCurrencyMode === 'single' && chart.defaultCurrency == null) {
    invalid('chartOfAccounts.defaultCurrency is required when defaultCurrencyMode is single.');
  }
  const walk = (accounts: AccountNode[], parentPath: string, depth: number) => {
    if (accounts.length > 0 && depth > MAX_CHART_DEPTH)
      invalid(`The chart of accounts is deeper than ${MAX_CHART_DEPTH} levels at ${parentPath}.`);
    const seen = new Set<string>();
    for (const account of accounts) {
      if (seen.has(account.key)) invalid(`Duplicate account key '${account.key}' under ${parentPath || 'the root'}.`);
      seen.add(account.key);
      walk(account.children ?? [], parentPath ? `${parentPath}/${account.key}` : account.key, depth + 1);
    }
  };
  walk(chart.accounts, '', 1);
  const built = buildChart(chart);
  for (const account of built.accounts.values()) {
    if (account.name) checkTemplate(account.name, `The name of ${account.chartPath}`);
    if (
      account.currencyCode &&
      placeholders(account.currencyCode).length > 0 &&
      !underTemplate(built, account.chartPath)
    ) {
      invalid(`The currency of ${account.chartPath} names a parameter, which only template accounts may do.`);
    }
  }

  const entryTypes = new Set<string>();
  for (const entry of schema.ledgerEntries?.types ?? []) {
    const id = `${entry.type}@${entry.typeVersion ?? 1}`;
    if (entryTypes.has(id)) invalid(`Entry type '${entry.type}' version ${entry.typeVersion ?? 1} is defined twice.`);
    entryTypes.add(id);
    checkEntryType(built, entry);
  }
  checkConditionFamily(schema.ledgerEntries?.types ?? []);
  return built;
}

/** Placeholders well-formed, amounts parseable, and every line and condition path in the chart. */
function checkEntryType(chart: Chart, entry: SchemaEntryType): void {
  const name = `Entry type ${entry.type}`;
  const lineKeys = new Set<string>();
  const checkPath = (path: string, where: string) => {
    checkTemplate(path, where);
    // Only template values can be checked against the chart without parameters.
    if (path.replace(/:\{\{[^}]*\}\}/g, '').includes('{{')) return;
    try {
      resolvePath(chart, path.replace(/\{\{[^}]*\}\}/g, 'x'));
    } catch {
      invalid(`${where}: ${path} is not an account of the chart of accounts.`);
    }
  };
  const checkBound = (
    bound: { eq?: string | null; gte?: string | null; lte?: string | null } | null | undefined,
    where: string,
  ) => {
    for (const value of [bound?.eq, bound?.gte, bound?.lte]) if (value != null) parseAmountExpression(value, where);
    if (bound?.eq != null && (bound.gte != null || bound.lte != null))
      invalid(`${where}: eq cannot be combined with gte or lte.`);
  };
  if (entry.description) checkTemplate(entry.description, `The description of ${name}`);
  for (const line of entry.lines ?? []) {
    const where = `${name}, line ${line.key}`;
    if (lineKeys.has(line.key)) invalid(`${name} has two lines with key '${line.key}'.`);
    lineKeys.add(line.key);
    checkPath(line.account.path, where);
    if (line.amount == null) invalid(`${where} needs an amount.`);
    parseAmountExpression(line.amount, where);
    if (line.description) checkTemplate(line.description, where);
    if (line.currency) checkTemplate(line.currency.code, where);
    for (const tag of line.tags ?? []) checkTemplate(tag.value, `${where}, tag ${tag.key}`);
  }
  for (const [index, condition] of (entry.conditions ?? []).entries()) {
    const where = `${name}, condition ${index}`;
    checkPath(condition.account.path, where);
    if (!condition.precondition && !condition.postcondition)
      invalid(`${where} needs a precondition or a postcondition.`);
    for (const side of [condition.precondition, condition.postcondition]) {
      checkBound(side?.ownBalance, where);
      checkBound(side?.totalBalance, where);
    }
  }
  for (const item of [...(entry.tags ?? []), ...(entry.groups ?? [])])
    checkTemplate(item.value, `${name}, ${item.key}`);
}

/** A schema bounds either own balances or total balances in its conditions, never both. */
function checkConditionFamily(types: readonly SchemaEntryType[]): void {
  const sides = types.flatMap((entry) =>
    (entry.conditions ?? []).flatMap((condition) => [condition.precondition, condition.postcondition]),
  );
  const own = sides.some((side) => side?.ownBalance);
  const total = sides.some((side) => side?.totalBalance);
  if (own && total) invalid('Conditions of one schema use either ownBalance or totalBalance bounds, not both.');
}

function underTemplate(chart: Chart, chartPath: string): boolean {
  for (let path: string | null = chartPath; path !== null;) {
    const account: ChartAccount = chart.accounts.get(path)!;
    if (account.template) return true;
    path = account.parentChartPath;
  }
  return false;
}

function invalid(message: string): never {
  throw new DomainError('invalid_input_provided', message);
}
