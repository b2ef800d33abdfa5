import { describe, expect, it } from 'vitest';
import { checkBalanced, lineDirection } from '../../src/core/entries.js';
import { DomainError } from '../../src/core/errors.js';

const line = (accountType: 'asset' | 'liability' | 'income' | 'expense', amount: bigint, currency = 'USD') => ({ accountType, currency, amount });

describe('checkBalanced', () => {
  it.each([
    ['funding: +asset, +liability', [line('asset', 100n), line('liability', 100n)]],
    ['a transfer between liabilities', [line('liability', -40n), line('liability', 40n)]],
    ['a fee: +gross asset, +net liability, +fee income', [line('asset', 100n), line('liability', 97n), line('income', 3n)]],
    ['an expense paid from an asset', [line('expense', 5n), line('asset', -5n)]],
    ['two currencies each balanced', [line('asset', 1n, 'USD'), line('liability', 1n, 'USD'), line('asset', 9n, 'EUR'), line('liability', 9n, 'EUR')]],
    ['amounts at the edge of Int96', [line('asset', (1n << 120n) - 1n), line('liability', (1n << 120n) - 1n)]],
  ])('accepts %s', (_label, lines) => {
    expect(() => checkBalanced(lines)).not.toThrow();
  });

  it.each([
    ['one line', [line('asset', 100n)]],
    ['+asset, −liability', [line('asset', 100n), line('liability', -100n)]],
    ['balanced overall but not per currency', [line('asset', 1n, 'USD'), line('liability', 1n, 'EUR')]],
  ])('refuses %s with entry_unbalanced', (_label, lines) => {
    expect(() => checkBalanced(lines)).toThrow(DomainError);
    try {
      checkBalanced(lines);
    } catch (error) {
      expect((error as DomainError).code).toBe('entry_unbalanced');
    }
  });
});

describe('lineDirection', () => {
  it.each([
    ['asset', 1n, 'debit'], ['asset', -1n, 'credit'], ['expense', 1n, 'debit'],
    ['liability', 1n, 'credit'], ['liability', -1n, 'debit'], ['income', 1n, 'credit'],
  ] as const)('%s %s is a %s', (type, amount, direction) => {
    expect(lineDirection(type, amount)).toBe(direction);
  });
});
