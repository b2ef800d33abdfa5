import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBalanced } from '../../src/core/entries.js';
import {
  declaredParameters,
  entryParameters,
  findEntryType,
  flatParameters,
  MAX_REPETITIONS,
  renderEntryType,
  repeatedParameters,
  type EntryParameters,
  type SchemaEntryType,
} from '../../src/core/entryTypes.js';
import { refusalOf } from '../support/domainErrors.js';

// A typed entry is its schema type rendered with the caller's parameters: the lines, conditions,
// tags, groups and description it renders are what gets posted, so amounts must come out exact
// at any magnitude and every text must hold each parameter's value verbatim.

const render = (type: SchemaEntryType, given: unknown) => renderEntryType(type, entryParameters(type, given));
const line = (key: string, path: string, amount: string) => ({ key, account: { path }, amount });

const FUND: SchemaEntryType = {
  type: 'fund',
  description: 'Funding {{user}} for order {{order}}',
  lines: [
    {
      ...line('in', 'assets/banks:{{bank}}', '{{amount}}'),
      currency: { code: '{{currency}}' },
      tx: { externalId: '{{txId}}' },
    },
    {
      ...line('out', 'liabilities/users:{{user}}/available', '{{amount}} - {{fee}}'),
      currency: { code: '{{currency}}' },
      description: 'net of {{fee}}',
      tags: [{ key: 'order', value: '{{order}}' }],
    },
    {
      ...line('fee', 'income/fees', '{{fee}}'),
      currency: { code: 'CUSTOM', customCurrencyId: '{{points}}' },
      tx: { id: 'tx_{{txId}}' },
    },
  ],
  conditions: [
    {
      account: { path: 'liabilities/users:{{user}}/available' },
      currency: { code: '{{currency}}' },
      precondition: { ownBalance: { gte: '0 - {{fee}}' } },
      postcondition: { ownBalance: { eq: '{{limit}} - {{amount}}' }, totalBalance: null },
    },
  ],
  tags: [{ key: 'order', value: 'ord-{{order}}' }],
  groups: [{ key: 'batch', value: '{{batch}}' }],
  parameters: { currency: 'USD', points: 'miles' },
};
const FUND_GIVEN = {
  user: 'u1',
  order: '42',
  bank: 'chase',
  amount: '1000',
  fee: '25',
  txId: 'ext-9',
  limit: '5000',
  batch: 'b-7',
};

describe('findEntryType', () => {
  const types: SchemaEntryType[] = [
    { type: 'fund' },
    { type: 'fund', typeVersion: 2, description: 'v2' },
    { type: 'old', status: 'archived' },
    { type: 'off', typeVersion: 3, status: 'disabled' },
  ];

  it('finds a type by name and version, version 1 when either side omits it', () => {
    expect(findEntryType(types, 'fund', undefined)).toBe(types[0]);
    expect(findEntryType(types, 'fund', 1)).toBe(types[0]);
    expect(findEntryType(types, 'fund', 2)).toBe(types[1]);
    expect(findEntryType([{ type: 'x', typeVersion: 1 }], 'x', null)).toEqual({ type: 'x', typeVersion: 1 });
  });

  it('answers entry_type_not_found naming the type and version', () => {
    expect(refusalOf(() => findEntryType(types, 'fund', 3))).toEqual({
      code: 'entry_type_not_found',
      message: "The ledger's schema has no entry type fund version 3.",
      details: { type: 'fund', typeVersion: 3 },
    });
    expect(refusalOf(() => findEntryType(types, 'refund', null)).details).toEqual({ type: 'refund', typeVersion: 1 });
  });

  it('refuses archived and disabled types', () => {
    expect(refusalOf(() => findEntryType(types, 'old', null))).toEqual({
      code: 'invalid_input_provided',
      details: undefined,
      message: 'Entry type old version 1 is archived; entries of it can no longer be posted.',
    });
    expect(refusalOf(() => findEntryType(types, 'off', 3)).message).toBe(
      'Entry type off version 3 is disabled; entries of it can no longer be posted.',
    );
  });
});

describe('declared parameters', () => {
  it('are the placeholders outside repeated items, the arrays they repeat over, and the fixed parameters', () => {
    const type: SchemaEntryType = {
      ...FUND,
      lines: [...FUND.lines!, { ...line('part', 'assets/{{inner}}', '{{share}}'), repeated: { key: 'parts' } }],
      conditions: [
        ...FUND.conditions!,
        {
          account: { path: 'assets/{{inner2}}' },
          precondition: { ownBalance: { gte: '{{floor}}' } },
          repeated: { key: 'checks' },
        },
      ],
    };
    expect([...declaredParameters(type)].sort()).toEqual([
      'amount',
      'bank',
      'batch',
      'checks',
      'currency',
      'fee',
      'limit',
      'order',
      'parts',
      'points',
      'txId',
      'user',
    ]);
    expect([...repeatedParameters(type)]).toEqual(['parts', 'checks']);
  });

  it('do not include line keys or tag keys', () => {
    const type: SchemaEntryType = {
      type: 't',
      lines: [{ ...line('{{k}}', 'a', '1'), tags: [{ key: '{{tk}}', value: 'v' }] }],
    };
    expect([...declaredParameters(type)]).toEqual([]);
  });
});

describe('entryParameters', () => {
  it('merges the caller parameters over the type fixed ones', () => {
    expect(entryParameters(FUND, { ...FUND_GIVEN, currency: 'EUR' })).toStrictEqual({
      currency: 'EUR',
      points: 'miles',
      ...FUND_GIVEN,
    });
    expect(entryParameters(FUND, null)).toStrictEqual({ currency: 'USD', points: 'miles' });
    expect(entryParameters({ type: 't' }, undefined)).toStrictEqual({});
  });

  it('refuses parameters that are not an object', () => {
    for (const given of [[], 'amount=1', 7]) {
      expect(refusalOf(() => entryParameters(FUND, given))).toEqual({
        code: 'entry_parameters_invalid',
        message: 'parameters must be an object of strings.',
        details: undefined,
      });
    }
  });

  it('refuses a parameter the type does not declare, and values that are not strings', () => {
    expect(refusalOf(() => entryParameters(FUND, { amount: '1', memo: 'x' }))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Entry type fund declares no parameter memo.',
      details: { parameter: 'memo' },
    });
    expect(refusalOf(() => entryParameters(FUND, { amount: 1000 }))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter amount must be a string, not number.',
      details: { parameter: 'amount' },
    });
    expect(refusalOf(() => entryParameters(FUND, { amount: null })).message).toBe(
      'Parameter amount must be a string, not null.',
    );
    expect(refusalOf(() => entryParameters(FUND, { amount: ['1'] })).message).toBe(
      'Parameter amount must be a string, not an array.',
    );
    expect(refusalOf(() => entryParameters(FUND, { amount: { value: '1' } })).message).toBe(
      'Parameter amount must be a string, not object.',
    );
  });

  const SPLIT: SchemaEntryType = {
    type: 'split',
    lines: [
      { ...line('part', 'liabilities/users:{{user}}/available', '{{amount}}'), repeated: { key: 'parts' } },
      line('total', 'assets/bank', '{{total}}'),
    ],
  };

  it('takes an array of string objects, at most 30, for each repeated item', () => {
    const parts = Array.from({ length: MAX_REPETITIONS }, (_, i) => ({ user: `u${i}`, amount: '1' }));
    expect(MAX_REPETITIONS).toBe(30);
    expect(entryParameters(SPLIT, { parts, total: '30' })).toStrictEqual({ parts, total: '30' });
    expect(
      refusalOf(() => entryParameters(SPLIT, { parts: [...parts, { user: 'u30', amount: '1' }], total: '31' })),
    ).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter parts has 31 elements; at most 30 are allowed.',
      details: { parameter: 'parts' },
    });
  });

  it('refuses a repeated parameter that is missing or of the wrong form, naming the element', () => {
    expect(refusalOf(() => entryParameters(SPLIT, { total: '0' }))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter parts is required (an array, one element per repeated line) but was not given.',
      details: { parameter: 'parts' },
    });
    expect(refusalOf(() => entryParameters(SPLIT, { parts: 'u1' })).message).toBe(
      'Parameter parts repeats lines and must be an array of objects, not string.',
    );
    expect(refusalOf(() => entryParameters(SPLIT, { parts: [{ user: 'u1' }, null] }))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'parts[1] must be an object of strings, not null.',
      details: { parameter: 'parts' },
    });
    expect(refusalOf(() => entryParameters(SPLIT, { parts: [['u1']] })).message).toBe(
      'parts[0] must be an object of strings, not an array.',
    );
    expect(refusalOf(() => entryParameters(SPLIT, { parts: [{ user: 'u1', amount: 5 }] }))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter parts[0].amount must be a string, not number.',
      details: { parameter: 'parts[0].amount' },
    });
  });

  it('keeps only the string parameters in the flat view', () => {
    expect(flatParameters({ user: 'u1', parts: [{ amount: '1' }] })).toStrictEqual({ user: 'u1' });
  });
});

describe('renderEntryType', () => {
  it('renders every line, condition, tag, group and the description with the parameters', () => {
    expect(render(FUND, FUND_GIVEN)).toStrictEqual({
      description: 'Funding u1 for order 42',
      lines: [
        {
          key: 'in',
          path: 'assets/banks:chase',
          amount: '1000',
          currency: 'USD',
          description: null,
          tags: [],
          tx: { externalId: 'ext-9' },
        },
        {
          key: 'out',
          path: 'liabilities/users:u1/available',
          amount: '975',
          currency: 'USD',
          description: 'net of 25',
          tags: [{ key: 'order', value: '42' }],
          tx: null,
        },
        {
          key: 'fee',
          path: 'income/fees',
          amount: '25',
          currency: 'CUSTOM:miles',
          description: null,
          tags: [],
          tx: { id: 'tx_ext-9' },
        },
      ],
      conditions: [
        {
          path: 'liabilities/users:u1/available',
          currency: 'USD',
          precondition: { ownBalance: { eq: undefined, gte: '-25', lte: undefined }, totalBalance: undefined },
          postcondition: { ownBalance: { eq: '4000', gte: undefined, lte: undefined }, totalBalance: undefined },
        },
      ],
      tags: [{ key: 'order', value: 'ord-42' }],
      groups: [{ key: 'batch', value: 'b-7' }],
    });
  });

  it('treats a parameter named like an inherited object property as any other name', () => {
    const lines = [line('a', 'assets/{{__proto__}}', '{{toString}}')];
    const type: SchemaEntryType = { type: 'odd', description: 'by {{constructor}}', lines };
    // Missing means missing: nothing inherited by every object stands in for a parameter.
    expect(refusalOf(() => render(type, {}))).toMatchObject({ code: 'entry_parameters_invalid' });
    // Given, each renders its own value; a JSON body's __proto__ key is a parameter, not a prototype.
    const given: unknown = JSON.parse('{"constructor":"ann","__proto__":"bank","toString":"7"}');
    const rendered = render({ ...type, lines: [...lines, line('b', 'assets/x', '0 - {{toString}}')] }, given);
    expect(rendered.description).toBe('by ann');
    expect(rendered.lines?.map((l) => [l.path, l.amount])).toEqual([
      ['assets/bank', '7'],
      ['assets/x', '-7'],
    ]);
  });

  it('repeats an item once per element, keyed .0, .1, …, element fields before entry parameters', () => {
    const type: SchemaEntryType = {
      type: 'split',
      lines: [
        {
          ...line('part', 'liabilities/users:{{user}}/available', '{{amount}}'),
          description: '{{note}}',
          repeated: { key: 'parts' },
        },
        line('total', 'assets/bank', '{{total}}'),
      ],
      conditions: [
        {
          account: { path: 'liabilities/users:{{user}}/available' },
          postcondition: { ownBalance: { gte: '{{amount}}' } },
          repeated: { key: 'parts' },
        },
      ],
      parameters: { note: 'shared' },
    };
    const rendered = render(type, {
      parts: [
        { user: 'a', amount: '7', note: 'own' },
        { user: 'b', amount: '3' },
      ],
      total: '10',
    });
    expect(rendered.lines!.map(({ key, path, amount, description }) => [key, path, amount, description])).toEqual([
      ['part.0', 'liabilities/users:a/available', '7', 'own'],
      ['part.1', 'liabilities/users:b/available', '3', 'shared'],
      ['total', 'assets/bank', '10', null],
    ]);
    expect(rendered.conditions.map((condition) => [condition.path, condition.postcondition?.ownBalance?.gte])).toEqual([
      ['liabilities/users:a/available', '7'],
      ['liabilities/users:b/available', '3'],
    ]);
    expect(render(type, { parts: [], total: '0' }).lines!.map((rendered) => rendered.key)).toEqual(['total']);
    expect(refusalOf(() => render(type, { parts: [{ user: 'a' }], total: '0' }))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter amount is required by line part.0 of entry type split but was not given.',
      details: { parameter: 'amount' },
    });
  });

  it('inserts a value as written, even one that looks like a placeholder or a replacement pattern', () => {
    const type: SchemaEntryType = { type: 't', description: '[{{a}}|{{b}}]' };
    expect(render(type, { a: "$& $1 $' {{b}}", b: '{{a}}' }).description).toBe("[$& $1 $' {{b}}|{{a}}]");
  });

  it('renders no lines when the type defines none, leaving them to the caller', () => {
    expect(render({ type: 't' }, {})).toStrictEqual({
      description: null,
      lines: null,
      conditions: [],
      tags: [],
      groups: [],
    });
    expect(render({ type: 't', lines: [] }, {}).lines).toBeNull();
  });

  it('names the missing or malformed parameter and where it was needed', () => {
    const without = (name: keyof typeof FUND_GIVEN) =>
      Object.fromEntries(Object.entries(FUND_GIVEN).filter(([key]) => key !== name));
    expect(refusalOf(() => render(FUND, without('fee')))).toEqual({
      code: 'entry_parameters_invalid',
      message: 'Parameter fee is required by line out of entry type fund but was not given.',
      details: { parameter: 'fee' },
    });
    expect(refusalOf(() => render(FUND, { ...FUND_GIVEN, amount: '10.50' }))).toEqual({
      code: 'entry_parameters_invalid',
      details: { parameter: 'amount' },
      message:
        "Parameter amount is used as an amount in line in of entry type fund and must be an integer string, not '10.50'.",
    });
    expect(refusalOf(() => render(FUND, without('order'))).message).toBe(
      'Parameter order is required by the description of entry type fund but was not given.',
    );
    expect(refusalOf(() => render(FUND, without('batch'))).message).toBe(
      'Parameter batch is required by group batch of entry type fund but was not given.',
    );
    expect(refusalOf(() => render(FUND, without('limit'))).message).toBe(
      'Parameter limit is required by condition 0 of entry type fund but was not given.',
    );
  });

  it('refuses a line without an amount and a currency that is not one', () => {
    expect(refusalOf(() => render({ type: 't', lines: [{ key: 'a', account: { path: 'x' } }] }, {}))).toEqual({
      code: 'invalid_input_provided',
      message: 'line a of entry type t has no amount.',
      details: undefined,
    });
    const customByParameter: SchemaEntryType = {
      type: 't',
      lines: [{ ...line('a', 'x', '1'), currency: { code: '{{c}}' } }],
    };
    expect(refusalOf(() => render(customByParameter, { c: 'CUSTOM' }))).toEqual({
      code: 'invalid_input_provided',
      message: 'line a of entry type t: code CUSTOM needs a customCurrencyId.',
      details: undefined,
    });
  });
});

// Parameter values as callers send them: signed integer strings, leading zeros included.
const integerText = fc
  .tuple(fc.boolean(), fc.nat(3), fc.bigInt({ min: 0n, max: 1n << 200n }))
  .map(([negative, zeros, magnitude]) => ({
    text: `${negative ? '-' : ''}${'0'.repeat(zeros)}${magnitude}`,
    value: negative ? -magnitude : magnitude,
  }));
const ACCOUNT_TYPES: Record<string, 'asset' | 'liability'> = { assets: 'asset', liabilities: 'liability' };
/** Rendered lines as the balance check sees them; the account type comes from the path's root. */
const posted = (lines: { path: string; amount: string; currency: string | null }[]) =>
  lines.map((rendered) => ({
    accountType: ACCOUNT_TYPES[rendered.path.split('/')[0]],
    currency: rendered.currency ?? 'USD',
    amount: BigInt(rendered.amount),
  }));

describe('laws of rendering', () => {
  // Law: a line `{{p}}` renders the exact integer p, canonical (no leading zeros, no -0), at any magnitude.
  it('renders each parameter amount exactly', () => {
    fc.assert(
      fc.property(integerText, ({ text, value }) => {
        expect(render({ type: 't', lines: [line('a', 'assets/bank', '{{p}}')] }, { p: text }).lines![0].amount).toBe(
          value.toString(),
        );
      }),
      { numRuns: 100 },
    );
  });

  // Law: debits of assets p1..pn against one liability line `{{p1}} + … + {{pn}}` balance exactly,
  // and moving any single amount by d ≠ 0 unbalances the entry by exactly d.
  it('renders a type whose lines balance symbolically into lines that balance exactly', () => {
    const shifts = fc.bigInt({ min: 1n, max: 1n << 130n });
    fc.assert(
      fc.property(fc.array(integerText, { minLength: 1, maxLength: 8 }), shifts, (amounts, shift) => {
        const given = Object.fromEntries(amounts.map(({ text }, i) => [`p${i}`, text]));
        const type: SchemaEntryType = {
          type: 'fund',
          lines: [
            ...amounts.map((_, i) => line(`in${i}`, `assets/bank${i}`, `{{p${i}}}`)),
            line('out', 'liabilities/pool', amounts.map((_, i) => `{{p${i}}}`).join(' + ')),
          ],
        };
        const lines = render(type, given).lines!;
        const sum = amounts.reduce((total, { value }) => total + value, 0n);
        expect(lines.map((rendered) => rendered.amount)).toEqual([
          ...amounts.map(({ value }) => value.toString()),
          sum.toString(),
        ]);
        expect(() => checkBalanced(posted(lines))).not.toThrow();
        const shifted = render(type, { ...given, p0: (amounts[0].value + shift).toString() }).lines!;
        shifted[shifted.length - 1] = lines[lines.length - 1];
        expect(refusalOf(() => checkBalanced(posted(shifted))).message).toBe(
          `The lines in USD do not balance: assets + expenses − liabilities − income is ${shift}, not 0.`,
        );
      }),
      { numRuns: 60 },
    );
  });

  // Law: repeating a line over n elements yields n lines in element order whose sum is Σ elements,
  // so a `-{{total}}` line on the same side balances them exactly when total = Σ.
  it('renders repeated lines in element order, summing exactly', () => {
    fc.assert(
      fc.property(fc.array(integerText, { maxLength: MAX_REPETITIONS }), (amounts) => {
        const total = amounts.reduce((sum, { value }) => sum + value, 0n);
        const type: SchemaEntryType = {
          type: 'sweep',
          lines: [
            { ...line('from', 'assets/wallets:{{wallet}}', '{{amount}}'), repeated: { key: 'moves' } },
            line('to', 'assets/treasury', '-{{total}}'),
          ],
        };
        const moves = amounts.map(({ text }, i) => ({ wallet: `w${i}`, amount: text }));
        const lines = render(type, { moves, total: total.toString() }).lines!;
        expect(lines.map((rendered) => [rendered.key, rendered.path, rendered.amount])).toEqual([
          ...amounts.map(({ value }, i) => [`from.${i}`, `assets/wallets:w${i}`, value.toString()]),
          ['to', 'assets/treasury', (-total).toString()],
        ]);
        expect(lines.reduce((sum, rendered) => sum + BigInt(rendered.amount), 0n)).toBe(0n);
      }),
      { numRuns: 60 },
    );
  });

  // Law: a +/- chain of literals and parameters renders to its exact signed sum, in lines and condition bounds alike.
  it('evaluates +/- chains of literals and parameters exactly in lines and bounds', () => {
    const term = fc.record({
      minus: fc.boolean(),
      parameter: fc.option(integerText, { nil: undefined }),
      literal: fc.bigInt({ min: 0n, max: 1n << 200n }),
    });
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 6 }), (terms) => {
        const given: Record<string, string> = {};
        const expression = terms
          .map((t, i) => {
            if (t.parameter) given[`v${i}`] = t.parameter.text;
            const text = t.parameter ? `{{v${i}}}` : t.literal.toString();
            return i === 0 ? `${t.minus ? '-' : ''}${text}` : ` ${t.minus ? '-' : '+'} ${text}`;
          })
          .join('');
        const expected = terms
          .reduce((sum, t) => {
            const value = t.parameter ? t.parameter.value : t.literal;
            return sum + (t.minus ? -value : value);
          }, 0n)
          .toString();
        const type: SchemaEntryType = {
          type: 't',
          lines: [line('a', 'assets/x', expression)],
          conditions: [
            { account: { path: 'assets/x' }, postcondition: { totalBalance: { gte: expression, lte: expression } } },
          ],
        };
        const rendered = render(type, given);
        expect(rendered.lines![0].amount).toBe(expected);
        expect(rendered.conditions[0].postcondition!.totalBalance).toEqual({
          eq: undefined,
          gte: expected,
          lte: expected,
        });
      }),
      { numRuns: 100 },
    );
  });

  // Law: every text renders with each parameter value verbatim (no re-expansion, no `$&` patterns),
  // whatever the value holds.
  it('substitutes parameter values verbatim into paths, descriptions, tags, groups and tx ids', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const type: SchemaEntryType = {
          type: 't',
          description: '{{a}}-{{b}}-{{a}}',
          lines: [
            {
              ...line('l', 'liabilities/users:{{a}}', '0'),
              description: '{{b}}',
              tags: [{ key: 'k', value: '<{{a}}>' }],
              tx: { externalId: '{{b}}' },
            },
          ],
          tags: [{ key: 't', value: '{{b}}{{a}}' }],
          groups: [{ key: 'g', value: '{{ a }}' }],
        };
        const rendered = render(type, { a, b });
        expect(rendered.description).toBe(`${a}-${b}-${a}`);
        expect(rendered.lines![0]).toMatchObject({
          path: `liabilities/users:${a}`,
          description: b,
          tags: [{ key: 'k', value: `<${a}>` }],
          tx: { externalId: b },
        });
        expect(rendered.tags).toEqual([{ key: 't', value: `${b}${a}` }]);
        expect(rendered.groups).toEqual([{ key: 'g', value: a }]);
      }),
      { numRuns: 100 },
    );
  });

  // Law: for string values over declared names, entryParameters is the caller's object laid over the fixed one.
  it('merges any declared string parameters over the fixed ones', () => {
    const names = ['user', 'order', 'bank', 'amount', 'fee', 'txId', 'limit', 'batch', 'currency', 'points'] as const;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...names), fc.string()), (given) => {
        const expected: EntryParameters = { ...(FUND.parameters as Record<string, string>), ...given };
        expect(entryParameters(FUND, given)).toStrictEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
