import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkBatchSize,
  checkName,
  MAX_CUSTOM_CURRENCY_TEXT,
  MAX_DELETE_TXS,
  MAX_NAME_LENGTH,
  MAX_SYNC_ITEMS,
  MAX_TX_DESCRIPTION_LENGTH,
  PRECISION_RANGE,
} from '../../src/core/links.js';
import { refusalOf } from '../support/domainErrors.js';

// Names of links, external accounts and custom currencies, and the batch limits of the sync and
// delete mutations: the resolvers refuse with these exact messages before touching the database.

describe('limits of links and custom currencies', () => {
  it('are the values the SDL documents', () => {
    const limits = {
      MAX_SYNC_ITEMS,
      MAX_DELETE_TXS,
      MAX_CUSTOM_CURRENCY_TEXT,
      MAX_NAME_LENGTH,
      MAX_TX_DESCRIPTION_LENGTH,
      PRECISION_RANGE,
    };
    expect(limits).toEqual({
      MAX_SYNC_ITEMS: 100,
      MAX_DELETE_TXS: 100,
      MAX_CUSTOM_CURRENCY_TEXT: 36,
      MAX_NAME_LENGTH: 256,
      MAX_TX_DESCRIPTION_LENGTH: 1024,
      PRECISION_RANGE: { min: 0, max: 18 },
    });
  });
});

describe('checkName', () => {
  it('returns the name untouched, surrounding spaces included', () => {
    expect(checkName('  Stripe payouts ', 'Link')).toBe('  Stripe payouts ');
    expect(checkName('x'.repeat(256), 'Link')).toBe('x'.repeat(256));
  });

  it('refuses a blank name, whatever whitespace it is made of', () => {
    for (const blank of ['', ' ', '\t\n', '\u00a0\u2003']) {
      expect(refusalOf(() => checkName(blank, 'Custom link'))).toEqual({
        code: 'invalid_input_provided',
        message: 'Custom link: the name must not be blank.',
      });
    }
  });

  it('refuses a name longer than 256 characters, saying how long it was', () => {
    expect(refusalOf(() => checkName('n'.repeat(257), 'Account acc-1'))).toEqual({
      code: 'invalid_input_provided',
      message: 'Account acc-1: the name has 257 characters; at most 256 are allowed.',
    });
  });

  // Law: a name passes exactly when it has a non-whitespace character and at most 256 UTF-16 units.
  it('accepts exactly the non-blank names of at most 256 characters', () => {
    const mixed = fc.string({ unit: fc.constantFrom('a', ' ', '\t', 'é', '😀'), maxLength: 300, size: 'max' });
    const blank = fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\u00a0'), maxLength: 300, size: 'max' });
    fc.assert(
      fc.property(fc.oneof(mixed, blank), (name) => {
        if (name.trim() === '') {
          expect(refusalOf(() => checkName(name, 'n')).message).toBe('n: the name must not be blank.');
        } else if (name.length > 256) {
          expect(refusalOf(() => checkName(name, 'n')).message).toBe(
            `n: the name has ${name.length} characters; at most 256 are allowed.`,
          );
        } else {
          expect(checkName(name, 'n')).toBe(name);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('checkBatchSize', () => {
  it('accepts one to max items', () => {
    expect(() => checkBatchSize(1, MAX_SYNC_ITEMS, 'account')).not.toThrow();
    expect(() => checkBatchSize(100, MAX_SYNC_ITEMS, 'account')).not.toThrow();
  });

  it('refuses an empty batch and one over the limit, naming the item', () => {
    expect(refusalOf(() => checkBatchSize(0, MAX_SYNC_ITEMS, 'account'))).toEqual({
      code: 'invalid_input_provided',
      message: 'Give at least one account.',
    });
    expect(refusalOf(() => checkBatchSize(101, MAX_DELETE_TXS, 'tx'))).toEqual({
      code: 'invalid_input_provided',
      message: 'At most 100 txs per call; 101 were given.',
    });
  });

  // Law: a batch of n items passes exactly when 1 ≤ n ≤ max.
  it('accepts exactly the sizes from 1 to max', () => {
    fc.assert(
      fc.property(fc.nat(300), fc.integer({ min: 1, max: 200 }), (count, max) => {
        const passes = (() => {
          try {
            checkBatchSize(count, max, 'item');
            return true;
          } catch {
            return false;
          }
        })();
        expect(passes).toBe(count >= 1 && count <= max);
      }),
      { numRuns: 300 },
    );
  });
});
