import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_ACCOUNT_DEPTH,
  MAX_ACCOUNTS_PER_CALL,
  newAccountAttributes,
  WORKSPACE_DEFAULT_CURRENCY,
  type AccountRequest,
  type Consistency,
  type ParentAccount,
} from '../../src/core/ledgerAccounts.js';
import { refusalOf } from '../support/domainErrors.js';

// Accounts created through the API (no schema): createLedgerAccounts inherits the parent's
// currency and consistency (inherit = true); createLedgerAccount takes defaults instead. Type
// always comes from the parent, and the tree stops at 10 levels.

const DEFAULT_CONSISTENCY: Consistency = { lines: 'eventual', ownBalanceUpdates: 'eventual', groups: [] };
const STRONG: Consistency = {
  lines: 'strong',
  ownBalanceUpdates: 'strong',
  totalBalanceUpdates: 'strong',
  groups: [{ key: 'order', ownBalanceUpdates: 'strong' }],
};

const parent = (overrides: Partial<ParentAccount> = {}): ParentAccount => ({
  id: 'acct_parent',
  path: 'liabilities/users',
  depth: 2,
  type: 'liability',
  currencyMode: 'single',
  currencyCode: 'EUR',
  consistency: STRONG,
  ...overrides,
});
const request = (overrides: Partial<AccountRequest> = {}): AccountRequest => ({
  ik: 'alice',
  name: 'Alice',
  ...overrides,
});
/** A top-level asset account as createLedgerAccount makes it. */
const topLevel = (overrides: Partial<AccountRequest>) =>
  newAccountAttributes(request({ type: 'asset', ...overrides }), undefined, false);

describe('limits', () => {
  it('allow 10 levels and 200 accounts per call, and USD as the currency of a workspace', () => {
    expect([MAX_ACCOUNT_DEPTH, MAX_ACCOUNTS_PER_CALL, WORKSPACE_DEFAULT_CURRENCY]).toEqual([10, 200, 'USD']);
  });
});

describe('a top-level account', () => {
  it('takes its path from its ik, depth 1, USD and eventual consistency by default', () => {
    expect(newAccountAttributes(request({ ik: 'assets', type: 'asset' }), undefined, true)).toStrictEqual({
      path: 'assets',
      depth: 1,
      type: 'asset',
      currencyMode: 'single',
      currencyCode: 'USD',
      consistency: DEFAULT_CONSISTENCY,
    });
  });

  it('needs a type', () => {
    expect(refusalOf(() => newAccountAttributes(request({ ik: 'cash' }), undefined, false))).toEqual({
      code: 'invalid_input_provided',
      message: 'Account cash is a top-level account and needs a type.',
    });
  });

  it('keys a custom currency as CUSTOM:<id>, and a multi-currency account has none', () => {
    expect(topLevel({ currency: { code: 'CUSTOM', customCurrencyId: 'points' } }).currencyCode).toBe('CUSTOM:points');
    const multi = topLevel({ currencyMode: 'multi' });
    expect([multi.currencyMode, multi.currencyCode]).toEqual(['multi', null]);
  });

  it('refuses a currency on a multi-currency account, and a malformed currency', () => {
    expect(refusalOf(() => topLevel({ currencyMode: 'multi', currency: { code: 'EUR' } }))).toEqual({
      code: 'invalid_input_provided',
      message: 'Account alice is multi-currency and cannot name a currency.',
    });
    expect(refusalOf(() => topLevel({ currency: { code: 'CUSTOM' } }))).toEqual({
      code: 'invalid_input_provided',
      message: 'Account alice: code CUSTOM needs a customCurrencyId.',
    });
    expect(refusalOf(() => topLevel({ currency: { code: 'EUR', customCurrencyId: 'points' } }))).toEqual({
      code: 'invalid_input_provided',
      message: 'Account alice: customCurrencyId goes with code CUSTOM, not EUR.',
    });
  });

  it('overrides the default consistency field by field, keeping totalBalanceUpdates only when set', () => {
    const attributes = topLevel({ consistencyConfig: { ownBalanceUpdates: 'strong', groups: null } });
    expect(attributes.consistency).toStrictEqual({ lines: 'eventual', ownBalanceUpdates: 'strong', groups: [] });
  });
});

describe('a child account', () => {
  it('sits under its parent: path, depth and type', () => {
    const attributes = newAccountAttributes(request(), parent(), true);
    expect([attributes.path, attributes.depth, attributes.type]).toEqual(['liabilities/users/alice', 3, 'liability']);
  });

  it('must have its parent type', () => {
    expect(refusalOf(() => newAccountAttributes(request({ type: 'asset' }), parent(), true))).toEqual({
      code: 'invalid_input_provided',
      message: "Account alice must have its parent's type (liability), not asset.",
    });
    expect(newAccountAttributes(request({ type: 'liability' }), parent(), false).type).toBe('liability');
  });

  it('may be 10 levels deep, not 11', () => {
    expect(newAccountAttributes(request(), parent({ depth: 9 }), true).depth).toBe(10);
    expect(refusalOf(() => newAccountAttributes(request({ ik: 'deep' }), parent({ depth: 10 }), true))).toEqual({
      code: 'invalid_input_provided',
      message: 'Account deep would be 11 levels deep; at most 10 are allowed.',
    });
  });

  it('inherits currency and consistency in createLedgerAccounts', () => {
    expect(newAccountAttributes(request(), parent(), true)).toStrictEqual({
      path: 'liabilities/users/alice',
      depth: 3,
      type: 'liability',
      currencyMode: 'single',
      currencyCode: 'EUR',
      consistency: STRONG,
    });
    const underMulti = newAccountAttributes(request(), parent({ currencyMode: 'multi', currencyCode: null }), true);
    expect([underMulti.currencyMode, underMulti.currencyCode]).toEqual(['multi', null]);
  });

  it('takes the defaults in createLedgerAccount, whatever the parent holds', () => {
    expect(newAccountAttributes(request(), parent({ currencyMode: 'multi', currencyCode: null }), false)).toStrictEqual(
      {
        path: 'liabilities/users/alice',
        depth: 3,
        type: 'liability',
        currencyMode: 'single',
        currencyCode: 'USD',
        consistency: DEFAULT_CONSISTENCY,
      },
    );
  });

  it('names its own currency under a multi-currency parent', () => {
    const own = newAccountAttributes(
      request({ currency: { code: 'JPY' } }),
      parent({ currencyMode: 'multi', currencyCode: null }),
      true,
    );
    expect([own.currencyMode, own.currencyCode]).toEqual(['single', 'JPY']);
  });

  // Law: with inherit, each consistency field is the request's when given, else the parent's
  // (totalBalanceUpdates absent when neither has it).
  it('merges consistency field by field over the parent', () => {
    const mode = fc.constantFrom('eventual' as const, 'strong' as const);
    const groups = fc.array(fc.record({ key: fc.string({ minLength: 1 }), ownBalanceUpdates: mode }), { maxLength: 3 });
    const fields = { lines: mode, ownBalanceUpdates: mode, totalBalanceUpdates: mode, groups };
    const consistency = fc.record(fields, { requiredKeys: ['lines', 'ownBalanceUpdates', 'groups'] });
    const partial = fc.record(fields, { requiredKeys: [] });
    fc.assert(
      fc.property(consistency, partial, (base, given) => {
        const merged = newAccountAttributes(
          request({ consistencyConfig: given }),
          parent({ consistency: base }),
          true,
        ).consistency;
        const expected: Consistency = {
          lines: given.lines ?? base.lines,
          ownBalanceUpdates: given.ownBalanceUpdates ?? base.ownBalanceUpdates,
          groups: given.groups ?? base.groups,
        };
        const total = given.totalBalanceUpdates ?? base.totalBalanceUpdates;
        if (total) expected.totalBalanceUpdates = total;
        expect(merged).toStrictEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  // Law: path = parent path + '/' + ik and depth = parent depth + 1, for any depth up to the limit.
  it('extends the parent path by exactly one segment and one level', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.stringMatching(/^[a-z0-9_-]{1,20}$/),
        fc.boolean(),
        (depth, ik, inherit) => {
          const attributes = newAccountAttributes(request({ ik }), parent({ depth, path: 'p' }), inherit);
          expect([attributes.path, attributes.depth]).toEqual([`p/${ik}`, depth + 1]);
        },
      ),
      { numRuns: 100 },
    );
  });
});
