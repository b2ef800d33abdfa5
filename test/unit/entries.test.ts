import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBalanced, lineDirection, linesToWrite } from '../../src/core/entries.js';
import { refusalOf } from '../support/domainErrors.js';

type AccountType = 'asset' | 'liability' | 'income' | 'expense';
const line = (accountType: AccountType, amount: bigint, currency = 'USD') => ({ accountType, currency, amount });

const unbalanced = (currency: string, total: bigint) => ({
  code: 'entry_unbalanced',
  message: `The lines in ${currency} do not balance: assets + expenses − liabilities − income is ${total}, not 0.`,
});

const INT96_MAX = (1n << 120n) - 1n;
const typeArb = fc.constantFrom<AccountType>('asset', 'liability', 'income', 'expense');
const amountArb = fc.bigInt({ min: -INT96_MAX, max: INT96_MAX });
const lineArb = fc.record({ accountType: typeArb, currency: fc.constantFrom('USD', 'EUR'), amount: amountArb });
// Assets and expenses sit on the left of the accounting equation, liabilities and income on the right.
const LEFT = new Set<AccountType>(['asset', 'expense']);

describe('checkBalanced', () => {
  it.each([
    ['funding: +asset, +liability', [line('asset', 100n), line('liability', 100n)]],
    ['a transfer between liabilities', [line('liability', -40n), line('liability', 40n)]],
    [
      'a fee: +gross asset, +net liability, +fee income',
      [line('asset', 100n), line('liability', 97n), line('income', 3n)],
    ],
    ['an expense paid from an asset', [line('expense', 5n), line('asset', -5n)]],
    [
      'two currencies each balanced',
      [line('asset', 1n, 'USD'), line('liability', 1n, 'USD'), line('asset', 9n, 'EUR'), line('liability', 9n, 'EUR')],
    ],
    ['amounts at the edge of Int96', [line('asset', (1n << 120n) - 1n), line('liability', (1n << 120n) - 1n)]],
  ])('accepts %s', (_label, lines) => {
    expect(() => checkBalanced(lines)).not.toThrow();
  });

  it.each([
    ['one line', [line('asset', 100n)], unbalanced('USD', 100n)],
    ['+asset, −liability', [line('asset', 100n), line('liability', -100n)], unbalanced('USD', 200n)],
    [
      'balanced overall but not per currency',
      [line('asset', 1n, 'USD'), line('liability', 1n, 'EUR')],
      unbalanced('USD', 1n),
    ],
  ])('refuses %s with entry_unbalanced', (_label, lines, refusal) => {
    expect(refusalOf(() => checkBalanced(lines))).toEqual(refusal);
  });

  it('names the first currency out of balance, with its exact total past 2^53', () => {
    const lines = [
      line('asset', 5n, 'EUR'),
      line('liability', 5n, 'EUR'),
      line('asset', 9007199254740993n, 'GBP'),
      line('income', 1n, 'JPY'),
    ];
    expect(refusalOf(() => checkBalanced(lines))).toEqual(unbalanced('GBP', 9007199254740993n));
  });

  it('accepts any lines completed per currency by one balancing line', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 8 }), typeArb, (lines, balancingType) => {
        const totals = new Map<string, bigint>();
        for (const l of lines)
          totals.set(l.currency, (totals.get(l.currency) ?? 0n) + (LEFT.has(l.accountType) ? l.amount : -l.amount));
        // The balancing line brings its currency's left-minus-right total to zero.
        const balancing = [...totals].map(([currency, total]) =>
          line(balancingType, LEFT.has(balancingType) ? -total : total, currency),
        );
        expect(() => checkBalanced([...lines, ...balancing])).not.toThrow();
      }),
    );
  });

  it('refuses exactly the lines whose left-minus-right total is not zero in some currency, naming the first', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 6 }), (lines) => {
        const totals = new Map<string, bigint>();
        for (const l of lines)
          totals.set(l.currency, (totals.get(l.currency) ?? 0n) + (LEFT.has(l.accountType) ? l.amount : -l.amount));
        const off = [...totals].find(([, total]) => total !== 0n);
        if (off) expect(refusalOf(() => checkBalanced(lines))).toEqual(unbalanced(off[0], off[1]));
        else expect(() => checkBalanced(lines)).not.toThrow();
      }),
    );
  });
});

describe('lineDirection', () => {
  it.each([
    ['asset', 1n, 'debit'],
    ['asset', -1n, 'credit'],
    ['expense', 1n, 'debit'],
    ['liability', 1n, 'credit'],
    ['liability', -1n, 'debit'],
    ['income', 1n, 'credit'],
  ] as const)('%s %s is a %s', (type, amount, direction) => {
    expect(lineDirection(type, amount)).toBe(direction);
  });

  it.each([
    ['expense', -1n, 'credit'],
    ['income', -1n, 'debit'],
    ['asset', 0n, 'debit'],
    ['liability', 0n, 'credit'],
  ] as const)('%s %s is a %s', (type, amount, direction) => {
    expect(lineDirection(type, amount)).toBe(direction);
  });

  it('debits what grows the left side or shrinks the right, and credits the rest, at any magnitude', () => {
    fc.assert(
      fc.property(typeArb, fc.bigInt({ min: 1n, max: INT96_MAX }), (type, magnitude) => {
        expect([lineDirection(type, magnitude), lineDirection(type, -magnitude)]).toEqual(
          LEFT.has(type) ? ['debit', 'credit'] : ['credit', 'debit'],
        );
      }),
    );
  });
});

describe('linesToWrite', () => {
  const written = (accountId: string, amount: string, extra: { currency?: string; txKey?: string | null } = {}) => ({
    accountId,
    currency: extra.currency ?? 'USD',
    amount,
    ...(extra.txKey === undefined ? {} : { txKey: extra.txKey }),
  });

  it('writes raw_lines as given, zero lines included', () => {
    const lines = [written('a', '5'), written('a', '0'), written('a', '-5')];
    expect(linesToWrite(lines, 'raw_lines')).toEqual(lines);
  });

  it('drops zero lines for skip_zero_lines', () => {
    expect(linesToWrite([written('a', '5'), written('b', '0'), written('c', '-5')], 'skip_zero_lines')).toEqual([
      written('a', '5'),
      written('c', '-5'),
    ]);
  });

  it('merges the lines of one account, currency and transaction into the first for net_amounts, then drops zeros', () => {
    const lines = [
      written('a', '5'),
      written('b', '3'),
      written('a', '-5'),
      written('b', '4'),
      written('b', '1', { currency: 'EUR' }),
      written('c', '2', { txKey: 't1' }),
      written('c', '2', { txKey: 't2' }),
      written('c', '1', { txKey: 't1' }),
    ];
    expect(linesToWrite(lines, 'net_amounts')).toEqual([
      written('b', '7'),
      written('b', '1', { currency: 'EUR' }),
      written('c', '3', { txKey: 't1' }),
      written('c', '2', { txKey: 't2' }),
    ]);
  });

  it('keeps an entry whose every line is zero as it was given, in every mode', () => {
    const lines = [written('a', '0'), written('a', '0')];
    for (const mode of ['raw_lines', 'skip_zero_lines', 'net_amounts'] as const)
      expect(linesToWrite(lines, mode)).toEqual(lines);
  });

  it('keeps the merged zero lines when netting leaves nothing else', () => {
    expect(linesToWrite([written('a', '5'), written('a', '-5')], 'net_amounts')).toEqual([written('a', '0')]);
  });

  type Written = { accountId: string; currency: string; amount: string; txKey?: string };
  it('keeps every account, currency and transaction total exactly, in every mode', () => {
    const lineOf = fc
      .record({
        accountId: fc.constantFrom('a', 'b'),
        currency: fc.constantFrom('USD', 'EUR'),
        txKey: fc.constantFrom(undefined, 't1'),
        amount: fc.oneof(fc.constant(0n), amountArb).map(String),
      })
      .map(({ txKey, ...rest }): Written => (txKey === undefined ? rest : { ...rest, txKey }));
    const group = (l: Written) => `${l.accountId} ${l.currency} ${l.txKey}`;
    const totals = (lines: Written[]) => {
      const sums = new Map<string, bigint>();
      for (const l of lines) sums.set(group(l), (sums.get(group(l)) ?? 0n) + BigInt(l.amount));
      return [...sums].filter(([, sum]) => sum !== 0n).sort(([a], [b]) => (a < b ? -1 : 1));
    };
    fc.assert(
      fc.property(
        fc.array(lineOf, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('raw_lines', 'skip_zero_lines', 'net_amounts'),
        (lines, mode) => {
          const out = linesToWrite(lines, mode);
          expect(totals(out)).toEqual(totals(lines));
          expect(out.length).toBeGreaterThanOrEqual(1);
          // Zero lines go unless nothing else would be left (skip_zero_lines per line, net_amounts per merged total).
          const somethingElse =
            mode === 'skip_zero_lines' ? lines.some((l) => l.amount !== '0') : totals(lines).length > 0;
          if (mode !== 'raw_lines' && somethingElse) expect(out.filter((l) => l.amount === '0')).toEqual([]);
          // Netting leaves one line per account, currency and transaction (an all-zero entry is kept as given).
          const allZero = lines.every((l) => l.amount === '0');
          if (mode === 'net_amounts' && !allZero) expect(new Set(out.map(group)).size).toBe(out.length);
          if (allZero) expect(out).toEqual(lines);
        },
      ),
    );
  });
});
