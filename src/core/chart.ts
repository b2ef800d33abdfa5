import { currencyKey } from './currencyKeys.js';
import { DomainError } from './errors.js';
import {
  DEFAULT_CONSISTENCY,
  mergeConsistency,
  WORKSPACE_DEFAULT_CURRENCY,
  type AccountType,
  type Consistency,
  type ConsistencyInput,
} from './ledgerAccounts.js';
import { placeholders, renderText, type Parameters } from './templates.js';

// A schema's chart of accounts, flattened with every inherited attribute resolved, and the
// mapping between concrete account paths (`liabilities/users:u1/available`) and chart nodes
// (`liabilities/users/available`). Template nodes are instantiated once per value, with their
// non-template subtree; everything else exists in every ledger on the schema.

type CurrencyInput = { code: string; customCurrencyId?: string | null };
/** The external account a chart account reconciles; parts may hold placeholders on templates. */
export type LinkedAccountInput = {
  id?: string | null;
  linkId?: string | null;
  externalId?: string | null;
  linkType?: string | null;
};
export type SchemaAccountInput = {
  key: string;
  name?: string | null;
  type?: AccountType | null;
  template?: boolean | null;
  currency?: CurrencyInput | null;
  currencyMode?: 'single' | 'multi' | null;
  consistencyConfig?: ConsistencyInput | null;
  linkedAccount?: LinkedAccountInput | null;
  status?: string | null;
  children?: SchemaAccountInput[] | null;
};
export type ChartInput = {
  accounts: SchemaAccountInput[];
  defaultCurrencyMode?: 'single' | 'multi' | null;
  defaultCurrency?: CurrencyInput | null;
  defaultConsistencyConfig?: ConsistencyInput | null;
};

export type ChartAccount = {
  /** Keys joined with '/', template values left out. */
  chartPath: string;
  key: string;
  parentChartPath: string | null;
  depth: number;
  name: string | null;
  type: AccountType;
  template: boolean;
  currencyMode: 'single' | 'multi';
  /** May hold placeholders on template subtrees; rendered when the instance is created. */
  currencyCode: string | null;
  consistency: Consistency;
  linkedAccount: LinkedAccountInput | null;
  /** Archived or disabled in the schema: no new lines, and its lines are due for migration. */
  status: 'active' | 'archived' | 'disabled';
  disabled: boolean;
  children: string[];
};

export type Chart = { accounts: Map<string, ChartAccount>; roots: string[] };

/**
 * A schema currency's key. Both parts may hold placeholders on template subtrees, rendered
 * with the instance (`CUSTOM:{{asset}}` becomes `CUSTOM:gold`).
 */
function chartCurrencyKey(currency: CurrencyInput | null | undefined): string | null {
  if (!currency) return null;
  if (currency.code !== 'CUSTOM' && !currency.customCurrencyId) return currency.code;
  return currencyKey(currency);
}

/** Flattens the chart; types, currencies and consistency flow down unless a node overrides them. */
export function buildChart(input: ChartInput): Chart {
  const accounts = new Map<string, ChartAccount>();
  const rootConsistency = mergeConsistency(DEFAULT_CONSISTENCY, input.defaultConsistencyConfig);
  const rootMode = input.defaultCurrencyMode ?? 'single';
  const rootCurrency =
    rootMode === 'multi' ? null : (chartCurrencyKey(input.defaultCurrency) ?? WORKSPACE_DEFAULT_CURRENCY);
  const walk = (nodes: SchemaAccountInput[], parent: ChartAccount | undefined): string[] =>
    nodes.map((node) => {
      const chartPath = parent ? `${parent.chartPath}/${node.key}` : node.key;
      const type = node.type ?? parent?.type;
      if (!type) throw new DomainError('invalid_input_provided', `Top-level account '${node.key}' needs a type.`);
      if (parent && type !== parent.type) {
        throw new DomainError(
          'invalid_input_provided',
          `Account ${chartPath} must have its parent's type (${parent.type}), not ${type}.`,
        );
      }
      const currencyMode = node.currencyMode ?? (node.currency ? 'single' : (parent?.currencyMode ?? rootMode));
      if (currencyMode === 'multi' && node.currency) {
        throw new DomainError(
          'invalid_input_provided',
          `Account ${chartPath} is multi-currency and cannot name a currency.`,
        );
      }
      const account: ChartAccount = {
        chartPath,
        key: node.key,
        parentChartPath: parent?.chartPath ?? null,
        depth: (parent?.depth ?? 0) + 1,
        name: node.name ?? null,
        type,
        template: node.template === true,
        currencyMode,
        currencyCode:
          currencyMode === 'multi' ? null : (chartCurrencyKey(node.currency) ?? parent?.currencyCode ?? rootCurrency),
        consistency: mergeConsistency(parent?.consistency ?? rootConsistency, node.consistencyConfig),
        linkedAccount: node.linkedAccount ?? null,
        status: (node.status ?? 'active') as ChartAccount['status'],
        disabled: node.status === 'disabled',
        children: [],
      };
      if (account.linkedAccount && node.children?.length) {
        throw new DomainError(
          'invalid_input_provided',
          `Account ${chartPath} is linked to an external account, so it cannot have children.`,
        );
      }
      if (node.linkedAccount?.linkType != null && node.linkedAccount.linkType !== 'CustomLink') {
        throw new DomainError(
          'invalid_input_provided',
          `Account ${chartPath}: only custom links can be created in Tally, so linkType must be CustomLink.`,
        );
      }
      accounts.set(chartPath, account);
      account.children = walk(node.children ?? [], account);
      return chartPath;
    });
  const roots = walk(input.accounts, undefined);
  return { accounts, roots };
}

/** A concrete account path resolved against the chart: each prefix with its chart node. */
export type ResolvedPath = { path: string; chartAccount: ChartAccount }[];

/**
 * Maps `a/b:v/c` to its chart nodes, checking that exactly the template nodes carry a value.
 * Throws `ledger_account_not_found` for a path the chart does not describe.
 */
export function resolvePath(chart: Chart, path: string): ResolvedPath {
  const resolved: ResolvedPath = [];
  let chartPath = '';
  let concrete = '';
  for (const segment of path.split('/')) {
    const colon = segment.indexOf(':');
    const key = colon === -1 ? segment : segment.slice(0, colon);
    const value = colon === -1 ? undefined : segment.slice(colon + 1);
    chartPath = chartPath ? `${chartPath}/${key}` : key;
    concrete = concrete ? `${concrete}/${segment}` : segment;
    const account = chart.accounts.get(chartPath);
    // Template values follow the SafeString rules: 1 to 128 characters, no / # :.
    const fits =
      account &&
      (account.template
        ? value !== undefined && value !== '' && value.length <= 128 && !/[#:]/.test(value)
        : value === undefined);
    if (!fits) {
      const hint = account?.template ? ` (${chartPath} is a template: address an instance as ${key}:<value>)` : '';
      throw new DomainError('ledger_account_not_found', `The schema has no account at ${path}${hint}.`, { path });
    }
    resolved.push({ path: concrete, chartAccount: account });
  }
  return resolved;
}

export type PlannedAccount = { path: string; chartAccount: ChartAccount };

/** The account at `path` and its non-template descendants, parents first. */
export function subtree(chart: Chart, path: string, account: ChartAccount): PlannedAccount[] {
  const planned: PlannedAccount[] = [{ path, chartAccount: account }];
  for (const childPath of account.children) {
    const child = chart.accounts.get(childPath)!;
    if (!child.template) planned.push(...subtree(chart, `${path}/${child.key}`, child));
  }
  return planned;
}

/**
 * The accounts a ledger lacks, parents first: every non-template chart node under the roots
 * and under each existing account (template instances included), transitively.
 */
export function missingAccounts(chart: Chart, existing: ReadonlySet<string>): PlannedAccount[] {
  const starts: PlannedAccount[] = [];
  for (const root of chart.roots) {
    const account = chart.accounts.get(root)!;
    if (!account.template) starts.push({ path: root, chartAccount: account });
  }
  for (const path of existing) {
    const account = tryResolve(chart, path);
    if (account) starts.push({ path, chartAccount: account });
  }
  return dedupe(starts.flatMap((start) => subtree(chart, start.path, start.chartAccount))).filter(
    (planned) => !existing.has(planned.path),
  );
}

/** What posting to the resolved path creates: each missing step with its subtree, parents first. */
export function instancesFor(
  chart: Chart,
  resolved: ResolvedPath,
  exists: (path: string) => boolean,
): PlannedAccount[] {
  return dedupe(
    resolved.filter((step) => !exists(step.path)).flatMap((step) => subtree(chart, step.path, step.chartAccount)),
  );
}

function dedupe(planned: PlannedAccount[]): PlannedAccount[] {
  const seen = new Set<string>();
  return planned.filter((item) => !seen.has(item.path) && Boolean(seen.add(item.path)));
}

function tryResolve(chart: Chart, path: string): ChartAccount | undefined {
  try {
    return resolvePath(chart, path).at(-1)!.chartAccount;
  } catch {
    return undefined;
  }
}

/** The currency of a new instance: template currencies may name a parameter. */
export function instanceCurrency(account: ChartAccount, parameters: Parameters): string | null {
  if (account.currencyCode === null || placeholders(account.currencyCode).length === 0) return account.currencyCode;
  return renderText(account.currencyCode, parameters, `the currency of ${account.chartPath}`);
}

/** A new version must keep every account, with its type, currency and template flag. */
export function checkChartCompatible(previous: Chart, next: Chart): void {
  for (const [chartPath, before] of previous.accounts) {
    const after = next.accounts.get(chartPath);
    const incompatible = (what: string) =>
      new DomainError(
        'schema_change_incompatible',
        `A new version of a schema cannot ${what} of ${chartPath}: each version keeps the accounts of the versions before it, which ledgers may be using.`,
        { account: chartPath },
      );
    if (!after) throw incompatible('remove the account');
    if (after.type !== before.type) throw incompatible(`change the type (${before.type} → ${after.type})`);
    if (after.currencyMode !== before.currencyMode || after.currencyCode !== before.currencyCode) {
      throw incompatible(`change the currency (${before.currencyCode ?? 'multi'} → ${after.currencyCode ?? 'multi'})`);
    }
    if (after.template !== before.template) throw incompatible('change whether it is a template');
    if (JSON.stringify(after.linkedAccount) !== JSON.stringify(before.linkedAccount))
      throw incompatible('change the external account linked');
  }
}
