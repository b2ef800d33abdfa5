import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildChart,
  checkChartCompatible,
  instanceCurrency,
  instancesFor,
  missingAccounts,
  resolvePath,
  subtree,
  type Chart,
  type ChartInput,
  type SchemaAccountInput,
} from '../../src/core/chart.js';
import { refusalOf } from '../support/domainErrors.js';

// A schema's chart of accounts: the flattened tree with inherited attributes, the mapping from
// concrete paths (`liabilities/users:u1/available`) to chart nodes, and the accounts a ledger
// must create. Ledgers are built from these answers, so they are checked exactly.

const SHOP: ChartInput = {
  defaultCurrency: { code: 'EUR' },
  defaultConsistencyConfig: { lines: 'strong' },
  accounts: [
    {
      key: 'assets',
      type: 'asset',
      children: [
        { key: 'bank', currency: { code: 'USD' }, linkedAccount: { linkId: 'link_1', externalId: 'acc-1' } },
        {
          key: 'wallets',
          template: true,
          currency: { code: 'CUSTOM', customCurrencyId: '{{asset}}' },
          children: [{ key: 'hot' }, { key: 'cold', status: 'disabled' }],
        },
      ],
    },
    {
      key: 'liabilities',
      type: 'liability',
      consistencyConfig: { ownBalanceUpdates: 'strong', totalBalanceUpdates: 'strong' },
      children: [
        {
          key: 'users',
          template: true,
          name: 'User {{user}}',
          children: [
            { key: 'available' },
            { key: 'pending', consistencyConfig: { lines: 'eventual' } },
            { key: 'cards', template: true, children: [{ key: 'holds' }] },
          ],
        },
      ],
    },
    {
      key: 'income',
      type: 'income',
      currencyMode: 'multi',
      children: [{ key: 'fees', currency: { code: 'GBP' } }, { key: 'fx' }],
    },
  ],
};
const shop = buildChart(SHOP);
const node = (chart: Chart, path: string) => chart.accounts.get(path)!;
const paths = (planned: { path: string }[]) => planned.map((item) => item.path);

describe('buildChart', () => {
  it('flattens the tree into chart paths, parents before children, with roots and children in schema order', () => {
    expect(shop.roots).toEqual(['assets', 'liabilities', 'income']);
    expect([...shop.accounts.keys()]).toEqual([
      'assets',
      'assets/bank',
      'assets/wallets',
      'assets/wallets/hot',
      'assets/wallets/cold',
      'liabilities',
      'liabilities/users',
      'liabilities/users/available',
      'liabilities/users/pending',
      'liabilities/users/cards',
      'liabilities/users/cards/holds',
      'income',
      'income/fees',
      'income/fx',
    ]);
    expect(node(shop, 'liabilities/users').children).toEqual([
      'liabilities/users/available',
      'liabilities/users/pending',
      'liabilities/users/cards',
    ]);
  });

  it('resolves every attribute of a node, inherited or its own', () => {
    expect(node(shop, 'liabilities/users/cards/holds')).toStrictEqual({
      chartPath: 'liabilities/users/cards/holds',
      key: 'holds',
      parentChartPath: 'liabilities/users/cards',
      depth: 4,
      name: null,
      type: 'liability',
      template: false,
      currencyMode: 'single',
      currencyCode: 'EUR',
      consistency: { lines: 'strong', ownBalanceUpdates: 'strong', groups: [], totalBalanceUpdates: 'strong' },
      linkedAccount: null,
      status: 'active',
      disabled: false,
      children: [],
    });
    expect(node(shop, 'assets/bank')).toMatchObject({
      currencyCode: 'USD',
      linkedAccount: { linkId: 'link_1', externalId: 'acc-1' },
      depth: 2,
    });
    expect(node(shop, 'liabilities/users')).toMatchObject({ template: true, name: 'User {{user}}' });
    expect(node(shop, 'assets/wallets/cold')).toMatchObject({ status: 'disabled', disabled: true });
  });

  it('lets types, currencies and consistency flow down unless a node overrides them', () => {
    expect(node(shop, 'assets').consistency).toStrictEqual({
      lines: 'strong',
      ownBalanceUpdates: 'eventual',
      groups: [],
    });
    expect(node(shop, 'liabilities/users/pending').consistency).toStrictEqual({
      lines: 'eventual',
      ownBalanceUpdates: 'strong',
      groups: [],
      totalBalanceUpdates: 'strong',
    });
    expect(node(shop, 'assets/wallets/hot').currencyCode).toBe('CUSTOM:{{asset}}');
    expect([
      node(shop, 'income').currencyCode,
      node(shop, 'income/fx').currencyMode,
      node(shop, 'income/fx').currencyCode,
    ]).toEqual([null, 'multi', null]);
    expect([node(shop, 'income/fees').currencyMode, node(shop, 'income/fees').currencyCode]).toEqual(['single', 'GBP']);
  });

  it('falls back to USD, and to no currency at all in a multi-currency chart', () => {
    expect(buildChart({ accounts: [{ key: 'cash', type: 'asset' }] }).accounts.get('cash')).toMatchObject({
      currencyMode: 'single',
      currencyCode: 'USD',
    });
    expect(
      buildChart({ defaultCurrencyMode: 'multi', accounts: [{ key: 'cash', type: 'asset' }] }).accounts.get('cash'),
    ).toMatchObject({ currencyMode: 'multi', currencyCode: null });
  });

  it.each<[string, SchemaAccountInput, string]>([
    ['a top-level account without a type', { key: 'cash' }, "Top-level account 'cash' needs a type."],
    [
      'a child of another type',
      { key: 'cash', type: 'asset', children: [{ key: 'loan', type: 'liability' }] },
      "Account cash/loan must have its parent's type (asset), not liability.",
    ],
    [
      'a currency on a multi-currency account',
      { key: 'cash', type: 'asset', currencyMode: 'multi', currency: { code: 'USD' } },
      'Account cash is multi-currency and cannot name a currency.',
    ],
    [
      'a linked account with children',
      { key: 'bank', type: 'asset', linkedAccount: { id: 'ext_1' }, children: [{ key: 'sub' }] },
      'Account bank is linked to an external account, so it cannot have children.',
    ],
    [
      'a link type other than CustomLink',
      { key: 'bank', type: 'asset', linkedAccount: { id: 'ext_1', linkType: 'ProviderLink' } },
      'Account bank: only custom links can be created in Tally, so linkType must be CustomLink.',
    ],
    [
      'CUSTOM without a custom currency id',
      { key: 'points', type: 'asset', currency: { code: 'CUSTOM' } },
      'currency: code CUSTOM needs a customCurrencyId.',
    ],
  ])('refuses %s', (_label, account, message) => {
    expect(refusalOf(() => buildChart({ accounts: [account] }))).toEqual({
      code: 'invalid_input_provided',
      message,
      details: undefined,
    });
  });

  it('accepts a linked leaf whose link type is CustomLink', () => {
    const chart = buildChart({
      accounts: [{ key: 'bank', type: 'asset', linkedAccount: { id: 'ext_1', linkType: 'CustomLink' } }],
    });
    expect(chart.accounts.get('bank')!.linkedAccount).toEqual({ id: 'ext_1', linkType: 'CustomLink' });
  });
});

describe('resolvePath', () => {
  it('maps a concrete path to its chart nodes, one per prefix', () => {
    expect(
      resolvePath(shop, 'liabilities/users:u-1/cards:c 9/holds').map((step) => [
        step.path,
        step.chartAccount.chartPath,
      ]),
    ).toEqual([
      ['liabilities', 'liabilities'],
      ['liabilities/users:u-1', 'liabilities/users'],
      ['liabilities/users:u-1/cards:c 9', 'liabilities/users/cards'],
      ['liabilities/users:u-1/cards:c 9/holds', 'liabilities/users/cards/holds'],
    ]);
  });

  it('refuses a path the chart lacks with ledger_account_not_found, naming the path', () => {
    expect(refusalOf(() => resolvePath(shop, 'assets/cash'))).toEqual({
      code: 'ledger_account_not_found',
      message: 'The schema has no account at assets/cash.',
      details: { path: 'assets/cash' },
    });
    expect(refusalOf(() => resolvePath(shop, 'assets:x')).message).toBe('The schema has no account at assets:x.');
    expect(refusalOf(() => resolvePath(shop, 'assets/')).message).toBe('The schema has no account at assets/.');
  });

  it('needs a value on exactly the template nodes, and says how to address an instance', () => {
    const hint = ' (liabilities/users is a template: address an instance as users:<value>).';
    for (const path of [
      'liabilities/users/available',
      'liabilities/users:/available',
      'liabilities/users:a#b',
      'liabilities/users:a:b',
      `liabilities/users:${'v'.repeat(129)}`,
    ]) {
      expect(refusalOf(() => resolvePath(shop, path)).message).toBe(`The schema has no account at ${path}${hint}`);
    }
    expect(resolvePath(shop, `liabilities/users:${'v'.repeat(128)}`).at(-1)!.chartAccount.chartPath).toBe(
      'liabilities/users',
    );
  });
});

describe('the accounts a ledger creates', () => {
  it('subtree lists an account and its non-template descendants, parents first', () => {
    expect(paths(subtree(shop, 'liabilities/users:u1', node(shop, 'liabilities/users')))).toEqual([
      'liabilities/users:u1',
      'liabilities/users:u1/available',
      'liabilities/users:u1/pending',
    ]);
  });

  it('a new ledger gets every account outside the templates', () => {
    expect(paths(missingAccounts(shop, new Set()))).toEqual([
      'assets',
      'assets/bank',
      'liabilities',
      'income',
      'income/fees',
      'income/fx',
    ]);
  });

  it('a new version adds what is missing, under template instances too, and ignores paths it cannot resolve', () => {
    const existing = new Set([
      'assets',
      'assets/bank',
      'liabilities',
      'liabilities/users:u1',
      'liabilities/users:u1/available',
      'income',
      'legacy/x',
    ]);
    expect(paths(missingAccounts(shop, existing))).toEqual([
      'income/fees',
      'income/fx',
      'liabilities/users:u1/pending',
    ]);
  });

  it('posting to a new instance creates each missing step with its subtree', () => {
    const resolved = resolvePath(shop, 'liabilities/users:u1/cards:c9/holds');
    expect(paths(instancesFor(shop, resolved, (path) => path === 'liabilities'))).toEqual([
      'liabilities/users:u1',
      'liabilities/users:u1/available',
      'liabilities/users:u1/pending',
      'liabilities/users:u1/cards:c9',
      'liabilities/users:u1/cards:c9/holds',
    ]);
    const existing = new Set([
      'liabilities',
      'liabilities/users:u1',
      'liabilities/users:u1/available',
      'liabilities/users:u1/pending',
    ]);
    expect(paths(instancesFor(shop, resolved, (path) => existing.has(path)))).toEqual([
      'liabilities/users:u1/cards:c9',
      'liabilities/users:u1/cards:c9/holds',
    ]);
    expect(instancesFor(shop, resolvePath(shop, 'liabilities'), () => true)).toEqual([]);
  });

  it('renders a template currency with the instance parameters and leaves fixed ones alone', () => {
    expect(instanceCurrency(node(shop, 'assets/wallets/hot'), { asset: 'gold' })).toBe('CUSTOM:gold');
    expect(instanceCurrency(node(shop, 'assets/bank'), {})).toBe('USD');
    expect(instanceCurrency(node(shop, 'income'), {})).toBeNull();
    expect(refusalOf(() => instanceCurrency(node(shop, 'assets/wallets'), {}))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter asset is required by the currency of assets/wallets but was not given.',
      details: { parameter: 'asset' },
    });
  });
});

describe('checkChartCompatible', () => {
  const base: ChartInput = {
    defaultCurrency: { code: 'EUR' },
    accounts: [
      {
        key: 'assets',
        type: 'asset',
        children: [
          { key: 'bank', linkedAccount: { id: 'ext_1' } },
          { key: 'users', template: true },
        ],
      },
    ],
  };
  const change = (edit: (accounts: SchemaAccountInput[]) => void): Chart => {
    const copy = structuredClone(base);
    edit(copy.accounts);
    return buildChart(copy);
  };
  const why = (account: string, what: string) => ({
    code: 'schema_change_incompatible',
    details: { account },
    message:
      `A new version of a schema cannot ${what} of ${account}: ` +
      'each version keeps the accounts of the versions before it, which ledgers may be using.',
  });

  it('accepts new accounts and changed names, statuses and consistency', () => {
    const next = change((accounts) => {
      accounts[0].name = 'Assets';
      accounts[0].children![1].status = 'archived';
      accounts[0].consistencyConfig = { ownBalanceUpdates: 'strong' };
      accounts[0].children!.push({ key: 'cash' });
      accounts.push({ key: 'income', type: 'income' });
    });
    expect(() => checkChartCompatible(buildChart(base), next)).not.toThrow();
  });

  it('refuses each change a ledger on the schema could not follow', () => {
    const before = buildChart(base);
    const cases: [Chart, string, string][] = [
      [change((accounts) => accounts[0].children!.splice(0, 1)), 'assets/bank', 'remove the account'],
      [
        change((accounts) => {
          accounts[0].type = 'liability';
        }),
        'assets',
        'change the type (asset → liability)',
      ],
      [
        change((accounts) => {
          accounts[0].currency = { code: 'USD' };
        }),
        'assets',
        'change the currency (EUR → USD)',
      ],
      [
        change((accounts) => {
          accounts[0].currencyMode = 'multi';
        }),
        'assets',
        'change the currency (EUR → multi)',
      ],
      [
        change((accounts) => {
          accounts[0].children![1].template = false;
        }),
        'assets/users',
        'change whether it is a template',
      ],
      [
        change((accounts) => {
          accounts[0].children![0].linkedAccount = { id: 'ext_2' };
        }),
        'assets/bank',
        'change the external account linked',
      ],
    ];
    for (const [next, account, what] of cases)
      expect(refusalOf(() => checkChartCompatible(before, next))).toEqual(why(account, what));
  });
});

// Random charts: keys unique among siblings, any node may be a template, up to four levels.
const chartArbitrary = fc.letrec<{ node: SchemaAccountInput }>((tie) => ({
  node: fc.record({
    key: fc.constantFrom('a', 'b', 'c', 'd'),
    template: fc.boolean(),
    children: fc.oneof(
      { depthSize: 'small' },
      fc.constant<SchemaAccountInput[]>([]),
      fc.uniqueArray(tie('node'), { selector: (child) => child.key, maxLength: 3 }),
    ),
  }),
})).node;
const inputsArbitrary = fc
  .uniqueArray(chartArbitrary, { selector: (root) => root.key, minLength: 1, maxLength: 3 })
  .map((roots): ChartInput => ({ accounts: roots.map((root) => ({ ...root, type: 'asset' as const })) }));
const chartsArbitrary = inputsArbitrary.map(buildChart);
// Template values as SafeStrings allow them: 1 to 128 characters without / # :.
const valueArbitrary = fc.string({
  minLength: 1,
  maxLength: 128,
  unit: fc.constantFrom('u', '1', '-', '_', '.', ' ', 'é'),
});

/** The concrete path of a chart node, each template step taking the next value. */
function concrete(chart: Chart, chartPath: string, values: string[]): string {
  const keys = chartPath.split('/');
  const isTemplate = (i: number) => node(chart, keys.slice(0, i + 1).join('/')).template;
  return keys.map((key, i) => (isTemplate(i) ? `${key}:${values[i % values.length]}` : key)).join('/');
}

describe('laws over random charts', () => {
  // Law: resolving a node's concrete path yields its chart prefixes, and the concrete prefixes as paths.
  it('resolvePath inverts the concrete path of every node', () => {
    fc.assert(
      fc.property(chartsArbitrary, fc.array(valueArbitrary, { minLength: 1, maxLength: 4 }), (chart, values) => {
        for (const chartPath of chart.accounts.keys()) {
          const path = concrete(chart, chartPath, values);
          const keys = chartPath.split('/');
          const segments = path.split('/');
          expect(resolvePath(chart, path).map((step) => [step.path, step.chartAccount.chartPath])).toEqual(
            keys.map((_, i) => [segments.slice(0, i + 1).join('/'), keys.slice(0, i + 1).join('/')]),
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  // Law: a node's path with the template value dropped, or a value added to a plain node, resolves to nothing.
  it('resolvePath refuses a value missing on a template or present on a plain node', () => {
    fc.assert(
      fc.property(chartsArbitrary, (chart) => {
        for (const [chartPath, account] of chart.accounts) {
          const parent = account.parentChartPath === null ? '' : `${concrete(chart, account.parentChartPath, ['v'])}/`;
          const wrong = `${parent}${account.key}${account.template ? '' : ':v'}`;
          expect(refusalOf(() => resolvePath(chart, wrong))).toMatchObject({
            code: 'ledger_account_not_found',
            details: { path: wrong },
          });
          expect(resolvePath(chart, concrete(chart, chartPath, ['v'])).at(-1)!.chartAccount).toBe(account);
        }
      }),
      { numRuns: 60 },
    );
  });

  // Law: missingAccounts plans no existing path, no template node, no path twice, parents before
  // children, and planning again after creating them plans nothing.
  it('missingAccounts completes a ledger in one pass, parents first', () => {
    fc.assert(
      fc.property(chartsArbitrary, fc.array(fc.tuple(fc.nat(), valueArbitrary), { maxLength: 4 }), (chart, picks) => {
        const chartPaths = [...chart.accounts.keys()];
        const existing = new Set<string>();
        for (const [index, value] of picks) {
          const path = concrete(chart, chartPaths[index % chartPaths.length], [value]);
          const segments = path.split('/');
          segments.forEach((_, i) => existing.add(segments.slice(0, i + 1).join('/')));
        }
        const planned = missingAccounts(chart, existing);
        const plannedPaths = paths(planned);
        expect(new Set(plannedPaths).size).toBe(plannedPaths.length);
        plannedPaths.forEach((path, i) => {
          expect(existing.has(path)).toBe(false);
          expect(planned[i].chartAccount.template).toBe(false);
          expect(resolvePath(chart, path).at(-1)!.chartAccount).toBe(planned[i].chartAccount);
          const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : null;
          if (parent !== null && !existing.has(parent)) expect(plannedPaths.slice(0, i)).toContain(parent);
        });
        expect(missingAccounts(chart, new Set([...existing, ...plannedPaths]))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  // Law: a version that only adds accounts is compatible; one without any single account is
  // refused, naming that account (parents are checked before their children).
  it('checkChartCompatible accepts additions and refuses any removal, naming the account removed', () => {
    fc.assert(
      fc.property(inputsArbitrary, fc.nat(), (input, pick) => {
        const before = buildChart(input);
        const added = structuredClone(input);
        added.accounts.push({ key: 'added', type: 'income', children: [{ key: 'child' }] });
        expect(() => checkChartCompatible(before, buildChart(added))).not.toThrow();
        const removedPath = [...before.accounts.keys()][pick % before.accounts.size];
        const removed = structuredClone(input);
        const keys = removedPath.split('/');
        let siblings = removed.accounts;
        for (const key of keys.slice(0, -1)) siblings = siblings.find((account) => account.key === key)!.children!;
        siblings.splice(
          siblings.findIndex((account) => account.key === keys.at(-1)),
          1,
        );
        expect(refusalOf(() => checkChartCompatible(before, buildChart(removed)))).toMatchObject({
          code: 'schema_change_incompatible',
          details: { account: removedPath },
        });
      }),
      { numRuns: 60 },
    );
  });
});
