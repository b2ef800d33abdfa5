import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildChart, type SchemaAccountInput } from '../../src/core/chart.js';
import type { SchemaEntryType } from '../../src/core/entryTypes.js';
import { checkSchema, MAX_CHART_DEPTH, type SchemaContent } from '../../src/core/ledgerSchemas.js';
import { refusalOf } from '../support/domainErrors.js';

// storeSchema refuses a schema with the first rule it breaks, as a BadRequestError carrying
// invalid_input_provided and a message naming the place; nothing is stored. Each rule gets the
// smallest schema that breaks it, so a message that changes or a rule that stops firing shows here.

type ChartOfAccounts = SchemaContent['chartOfAccounts'];
type Condition = NonNullable<SchemaEntryType['conditions']>[number];

const CHART: ChartOfAccounts = {
  defaultCurrencyMode: 'single',
  defaultCurrency: { code: 'USD' },
  accounts: [
    {
      key: 'assets',
      type: 'asset',
      children: [
        { key: 'bank' },
        { key: 'wallets', template: true, currency: { code: 'CUSTOM', customCurrencyId: '{{asset}}' } },
      ],
    },
    {
      key: 'liabilities',
      type: 'liability',
      children: [{ key: 'users', template: true, name: 'User {{user}}', children: [{ key: 'available' }] }],
    },
  ],
};
/** A schema on CHART with one entry type; `type` overrides the type's fields. */
const withType = (type: Partial<SchemaEntryType>): SchemaContent => ({
  key: 'shop',
  chartOfAccounts: CHART,
  ledgerEntries: { types: [{ type: 'pay', ...type }] },
});
const line = (key: string, path: string, amount: string | null) => ({ key, account: { path }, amount });
/** A type with one line `a` on assets/bank, with extra fields. */
const bankLine = (extra: object) => withType({ lines: [{ ...line('a', 'assets/bank', '1'), ...extra }] });
/** A type with one condition. */
const condition = (given: Condition) => withType({ conditions: [given] });
const chartOf = (accounts: SchemaAccountInput[]): SchemaContent => ({ key: 's', chartOfAccounts: { accounts } });
/** A chain of accounts l1/l2/…/ln, typed at the top. */
function chain(levels: number): SchemaAccountInput[] {
  const keys = Array.from({ length: levels }, (_, i) => `l${i + 1}`);
  const accounts = keys.reduceRight<SchemaAccountInput[]>((children, key) => [{ key, children }], []);
  accounts[0].type = 'asset';
  return accounts;
}
const NOT_AN_AMOUNT = 'is not an amount; use integers and {{parameters}} joined by + and -.';
const MALFORMED = 'has a malformed placeholder; write {{name}} with letters, digits and _.';
const NOT_IN_CHART = 'is not an account of the chart of accounts.';

describe('a valid schema', () => {
  const schema: SchemaContent = {
    key: 'shop',
    name: 'Shop',
    chartOfAccounts: CHART,
    ledgerEntries: {
      types: [
        {
          type: 'fund',
          description: 'Funding for {{user}}',
          lines: [
            line('in', 'assets/bank', '{{amount}}'),
            line('out', 'liabilities/users:{{user}}/available', '{{amount}} - {{fee}} + 0'),
          ],
          conditions: [
            {
              account: { path: 'liabilities/users:{{user}}/available' },
              postcondition: { ownBalance: { gte: '0', lte: '{{cap}} - 1' } },
            },
          ],
          tags: [{ key: 'order', value: '{{order}}' }],
          groups: [{ key: 'batch', value: '{{batch}}' }],
        },
        {
          type: 'fund',
          typeVersion: 2,
          lines: [line('in', 'assets/wallets:{{asset}}', '-{{amount}}'), line('free', 'assets/{{anything}}', '5')],
        },
        {
          type: 'split',
          lines: [
            { ...line('part', 'liabilities/users:{{user}}/available', '{{amount}}'), repeated: { key: 'parts' } },
          ],
        },
        { type: 'old', status: 'archived', lines: [line('a', 'assets/bank', '1')] },
      ],
    },
  };

  it('is accepted and answered with its flattened chart', () => {
    const chart = checkSchema(schema);
    expect(chart).toStrictEqual(buildChart(CHART));
    expect([...chart.accounts.keys()]).toEqual([
      'assets',
      'assets/bank',
      'assets/wallets',
      'liabilities',
      'liabilities/users',
      'liabilities/users/available',
    ]);
  });

  it('may be a chart alone, and a multi-currency chart needs no default currency', () => {
    expect(checkSchema(chartOf([{ key: 'cash', type: 'asset' }])).roots).toEqual(['cash']);
    const multi: ChartOfAccounts = { defaultCurrencyMode: 'multi', accounts: [{ key: 'cash', type: 'asset' }] };
    expect(checkSchema({ key: 's', chartOfAccounts: multi }).accounts.get('cash')!.currencyCode).toBeNull();
  });

  it('may be ten levels deep, the most the contract allows', () => {
    expect(checkSchema(chartOf(chain(9))).accounts.get('l1/l2/l3/l4/l5/l6/l7/l8/l9')!.depth).toBe(9);
    expect(checkSchema(chartOf(chain(10))).accounts.get('l1/l2/l3/l4/l5/l6/l7/l8/l9/l10')!.depth).toBe(10);
  });

  it('lets a template subtree name its currency by parameter', () => {
    const hot: SchemaAccountInput = { key: 'hot', currency: { code: '{{cur}}' } };
    const chart = checkSchema(chartOf([{ key: 'w', type: 'asset', template: true, children: [hot] }]));
    expect(chart.accounts.get('w/hot')!.currencyCode).toBe('{{cur}}');
  });
});

describe('refusals of the chart of accounts', () => {
  it('sets the chart depth limit at 10', () => {
    expect(MAX_CHART_DEPTH).toBe(10);
  });

  it.each<[string, ChartOfAccounts, string]>([
    [
      'a default currency in multi-currency mode',
      { defaultCurrencyMode: 'multi', defaultCurrency: { code: 'USD' }, accounts: [] },
      'chartOfAccounts.defaultCurrency must be omitted when defaultCurrencyMode is multi.',
    ],
    [
      'single-currency mode without a default currency',
      { defaultCurrencyMode: 'single', accounts: [] },
      'chartOfAccounts.defaultCurrency is required when defaultCurrencyMode is single.',
    ],
    [
      'two top-level accounts with one key',
      {
        accounts: [
          { key: 'cash', type: 'asset' },
          { key: 'cash', type: 'asset' },
        ],
      },
      "Duplicate account key 'cash' under the root.",
    ],
    [
      'two siblings with one key',
      {
        accounts: [{ key: 'assets', type: 'asset', children: [{ key: 'x', children: [{ key: 'y' }, { key: 'y' }] }] }],
      },
      "Duplicate account key 'y' under assets/x.",
    ],
    ['a top-level account without a type', { accounts: [{ key: 'cash' }] }, "Top-level account 'cash' needs a type."],
    [
      'a malformed placeholder in a name',
      { accounts: [{ key: 'cash', type: 'asset', name: 'Cash {{' }] },
      `The name of cash: 'Cash {{' ${MALFORMED}`,
    ],
    [
      'a currency naming a parameter outside a template',
      { accounts: [{ key: 'cash', type: 'asset', currency: { code: '{{cur}}' } }] },
      'The currency of cash names a parameter, which only template accounts may do.',
    ],
    [
      'a custom currency parameter outside a template',
      { accounts: [{ key: 'pts', type: 'asset', currency: { code: 'CUSTOM', customCurrencyId: '{{p}}' } }] },
      'The currency of pts names a parameter, which only template accounts may do.',
    ],
  ])('refuses %s', (_label, chartOfAccounts, message) => {
    expect(refusalOf(() => checkSchema({ key: 's', chartOfAccounts }))).toEqual({
      code: 'invalid_input_provided',
      message,
    });
  });

  it('refuses a chart eleven levels deep, naming the tenth level', () => {
    expect(refusalOf(() => checkSchema(chartOf(chain(11))))).toEqual({
      code: 'invalid_input_provided',
      message: 'The chart of accounts is deeper than 10 levels at l1/l2/l3/l4/l5/l6/l7/l8/l9/l10.',
    });
  });
});

describe('refusals of entry types', () => {
  it.each<[string, SchemaContent, string]>([
    [
      'a type defined twice (version 1 written or omitted)',
      {
        key: 's',
        chartOfAccounts: CHART,
        ledgerEntries: { types: [{ type: 'pay' }, { type: 'pay', typeVersion: 1 }] },
      },
      "Entry type 'pay' version 1 is defined twice.",
    ],
    [
      'two lines with one key',
      withType({ lines: [line('a', 'assets/bank', '1'), line('a', 'assets/bank', '-1')] }),
      "Entry type pay has two lines with key 'a'.",
    ],
    [
      'a line on an account the chart lacks',
      withType({ lines: [line('a', 'bank', '1')] }),
      `Entry type pay, line a: bank ${NOT_IN_CHART}`,
    ],
    [
      'a line on a template without its value',
      withType({ lines: [line('a', 'liabilities/users/available', '1')] }),
      `Entry type pay, line a: liabilities/users/available ${NOT_IN_CHART}`,
    ],
    [
      'a line on a template value under a plain account',
      withType({ lines: [line('a', 'assets:{{x}}/bank', '1')] }),
      `Entry type pay, line a: assets:{{x}}/bank ${NOT_IN_CHART}`,
    ],
    [
      'a line without an amount',
      withType({ lines: [line('a', 'assets/bank', null)] }),
      'Entry type pay, line a needs an amount.',
    ],
    [
      'an amount with an operator schemas do not allow',
      bankLine({ amount: '{{x}} * 2' }),
      `Entry type pay, line a: '{{x}} * 2' ${NOT_AN_AMOUNT}`,
    ],
    [
      'a malformed placeholder in an amount',
      bankLine({ amount: '{{x}' }),
      `Entry type pay, line a: '{{x}' ${NOT_AN_AMOUNT}`,
    ],
    [
      'a malformed placeholder in a line path',
      bankLine({ account: { path: 'liabilities/users:{{user/available' } }),
      `Entry type pay, line a: 'liabilities/users:{{user/available' ${MALFORMED}`,
    ],
    [
      'a malformed placeholder in a line description',
      bankLine({ description: 'for {{order' }),
      `Entry type pay, line a: 'for {{order' ${MALFORMED}`,
    ],
    [
      'a malformed placeholder in a line currency',
      bankLine({ currency: { code: '{{cur}' } }),
      `Entry type pay, line a: '{{cur}' ${MALFORMED}`,
    ],
    [
      'a malformed placeholder in a line tag',
      bankLine({ tags: [{ key: 'order', value: '{{ord er}}' }] }),
      `Entry type pay, line a, tag order: '{{ord er}}' ${MALFORMED}`,
    ],
    [
      'a malformed placeholder in the description',
      withType({ description: 'Pay }}' }),
      `The description of Entry type pay: 'Pay }}' ${MALFORMED}`,
    ],
    [
      'a malformed placeholder in a tag',
      withType({ tags: [{ key: 'order', value: '{{1st}}' }] }),
      `Entry type pay, order: '{{1st}}' ${MALFORMED}`,
    ],
    [
      'a malformed placeholder in a group',
      withType({ groups: [{ key: 'batch', value: '{{}}' }] }),
      `Entry type pay, batch: '{{}}' ${MALFORMED}`,
    ],
    [
      'a condition bounding nothing',
      condition({ account: { path: 'assets/bank' } }),
      'Entry type pay, condition 0 needs a precondition or a postcondition.',
    ],
    [
      'a condition on an account the chart lacks',
      condition({ account: { path: 'cash' }, precondition: { ownBalance: { gte: '0' } } }),
      `Entry type pay, condition 0: cash ${NOT_IN_CHART}`,
    ],
    [
      'a bound that is not an amount',
      condition({ account: { path: 'assets/bank' }, postcondition: { totalBalance: { lte: '1e3' } } }),
      `Entry type pay, condition 0: '1e3' ${NOT_AN_AMOUNT}`,
    ],
    [
      'eq combined with gte',
      condition({ account: { path: 'assets/bank' }, precondition: { ownBalance: { eq: '0', gte: '0' } } }),
      'Entry type pay, condition 0: eq cannot be combined with gte or lte.',
    ],
    [
      'eq combined with lte',
      condition({ account: { path: 'assets/bank' }, postcondition: { totalBalance: { eq: '0', lte: '0' } } }),
      'Entry type pay, condition 0: eq cannot be combined with gte or lte.',
    ],
    [
      'ownBalance and totalBalance bounds in one schema',
      {
        key: 's',
        chartOfAccounts: CHART,
        ledgerEntries: {
          types: [
            {
              type: 'a',
              conditions: [{ account: { path: 'assets/bank' }, precondition: { ownBalance: { gte: '0' } } }],
            },
            {
              type: 'b',
              conditions: [{ account: { path: 'assets/bank' }, postcondition: { totalBalance: { gte: '0' } } }],
            },
          ],
        },
      },
      'Conditions of one schema use either ownBalance or totalBalance bounds, not both.',
    ],
  ])('refuses %s', (_label, schema, message) => {
    expect(refusalOf(() => checkSchema(schema))).toEqual({ code: 'invalid_input_provided', message });
  });

  it('checks archived and disabled types too', () => {
    expect(
      refusalOf(() => checkSchema(withType({ status: 'disabled', lines: [line('a', 'bank', '1')] }))).message,
    ).toBe(`Entry type pay, line a: bank ${NOT_IN_CHART}`);
  });
});

// Random charts of unique sibling keys, up to four levels.
const tree = fc.letrec<{ node: SchemaAccountInput }>((tie) => ({
  node: fc.record({
    key: fc.constantFrom('a', 'b', 'c'),
    template: fc.boolean(),
    children: fc.oneof(
      { depthSize: 'small' },
      fc.constant<SchemaAccountInput[]>([]),
      fc.uniqueArray(tie('node'), { selector: (child) => child.key, maxLength: 3 }),
    ),
  }),
})).node;
const roots = fc
  .uniqueArray(tree, { selector: (root) => root.key, minLength: 1, maxLength: 3 })
  .map((accounts) => accounts.map((account) => ({ ...account, type: 'liability' as const })));

describe('laws', () => {
  // Law: for a chart with unique sibling keys, checkSchema answers buildChart's chart.
  it('accepts any chart with unique sibling keys and answers its flattened form', () => {
    fc.assert(
      fc.property(roots, (accounts) => {
        expect(checkSchema(chartOf(accounts))).toStrictEqual(buildChart({ accounts }));
      }),
      { numRuns: 60 },
    );
  });

  // Law: duplicating any account among its siblings is refused with a message naming the parent.
  it('refuses a duplicated sibling anywhere in the tree', () => {
    fc.assert(
      fc.property(roots, fc.nat(), (accounts, pick) => {
        const chartPaths = [...buildChart({ accounts }).accounts.keys()];
        const keys = chartPaths[pick % chartPaths.length].split('/');
        const copy = structuredClone(accounts);
        let siblings: SchemaAccountInput[] = copy;
        for (const key of keys.slice(0, -1)) siblings = siblings.find((account) => account.key === key)!.children!;
        siblings.push({ key: keys.at(-1)! });
        const parent = keys.length > 1 ? keys.slice(0, -1).join('/') : 'the root';
        expect(refusalOf(() => checkSchema(chartOf(copy)))).toEqual({
          code: 'invalid_input_provided',
          message: `Duplicate account key '${keys.at(-1)}' under ${parent}.`,
        });
      }),
      { numRuns: 60 },
    );
  });

  // Law: a line amount passes exactly when it is a +/- chain of integers and {{parameters}}.
  it('accepts every +/- chain of terms as a line amount and refuses any other operator in it', () => {
    const term = fc.oneof(
      fc.bigInt({ min: 0n, max: 1n << 130n }).map(String),
      fc.constantFrom('{{a}}', '{{ b }}', '{{c_1}}'),
    );
    const chainOfTerms = fc.array(fc.tuple(fc.constantFrom('+', '-'), term), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(chainOfTerms, fc.boolean(), fc.constantFrom('*', '/', '%', '(', '.'), (terms, negative, operator) => {
        const amount = `${negative ? '-' : ''}${terms.map(([sign, text], i) => (i === 0 ? text : ` ${sign} ${text}`)).join('')}`;
        expect(() => checkSchema(bankLine({ amount }))).not.toThrow();
        const broken = `${amount} ${operator} 2`;
        expect(refusalOf(() => checkSchema(bankLine({ amount: broken })))).toEqual({
          code: 'invalid_input_provided',
          message: `Entry type pay, line a: '${broken}' ${NOT_AN_AMOUNT}`,
        });
      }),
      { numRuns: 150 },
    );
  });
});
