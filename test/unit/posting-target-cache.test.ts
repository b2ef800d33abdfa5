import { describe, expect, it } from 'vitest';
import type { LedgerAccountRow } from '../../src/db/ledgerAccounts.js';
import type { PostingTarget, TargetQuery } from '../../src/db/postingLookup.js';
import { postingTargetCache } from '../../src/ledger/entries/postingTargetCache.js';

// What the cache answers from memory must be what a lookup would read: never a ledger dropped
// since the lookup that filled it started, never a ledger past its age, never part of a query.

const ledger = (id: string, ik: string) =>
  ({ workspaceId: 'w', id, ik, name: 'l', schemaContentHash: null }) as unknown as PostingTarget['ledger'];
const account = (id: string, path: string) => ({ id, ik: `ik-${id}`, path }) as LedgerAccountRow;
const query = (match: TargetQuery['match'], paths: string[] = [], ids: string[] = []): TargetQuery => ({
  workspaceId: 'w',
  match,
  ids,
  paths,
  iks: [],
});

describe('the posting-target cache', () => {
  it('answers a query whose ledger and every named account it holds, by id, path or ik', () => {
    const cache = postingTargetCache({ maxAccounts: 100, maxAgeMs: 1000 });
    cache.keep(query({ ik: 'main' }, ['cash']), { ledger: ledger('l1', 'main'), accounts: [account('a1', 'cash')] }, 0);
    expect(cache.find(query({ ik: 'main' }, ['cash']))?.accounts.map((a) => a.id)).toEqual(['a1']);
    expect(cache.find(query({ id: 'l1' }, [], ['a1']))?.ledger.id).toBe('l1');
    expect(cache.find({ ...query({ id: 'l1', ik: 'main' }), iks: ['ik-a1'] })?.accounts).toHaveLength(1);
    // Part of a query is no answer: the rest may exist in the database.
    expect(cache.find(query({ ik: 'main' }, ['cash', 'bank']))).toBeUndefined();
    // An id and an ik of different ledgers match nothing, as in the database.
    expect(cache.find(query({ id: 'l1', ik: 'other' }))).toBeUndefined();
    expect(cache.size()).toBe(1);
  });

  it('keeps nothing a lookup read if a ledger was dropped while it ran', () => {
    const cache = postingTargetCache({ maxAccounts: 100, maxAgeMs: 1000 });
    const started = cache.epoch();
    cache.drop('w', 'l1');
    cache.keep(
      query({ ik: 'main' }, ['cash']),
      { ledger: ledger('l1', 'main'), accounts: [account('a1', 'cash')] },
      started,
    );
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeUndefined();
  });

  it('drops a ledger on notice, by id, and its ik with it', () => {
    const cache = postingTargetCache({ maxAccounts: 100, maxAgeMs: 1000 });
    cache.keep(query({ ik: 'main' }, ['cash']), { ledger: ledger('l1', 'main'), accounts: [account('a1', 'cash')] }, 0);
    cache.keep(
      query({ ik: 'other' }, ['cash']),
      { ledger: ledger('l2', 'other'), accounts: [account('a2', 'cash')] },
      0,
    );
    cache.drop('w', 'l1');
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeUndefined();
    expect(cache.find(query({ id: 'l1' }, ['cash']))).toBeUndefined();
    expect(cache.find(query({ ik: 'other' }, ['cash']))?.accounts.map((a) => a.id)).toEqual(['a2']);
    expect(cache.size()).toBe(1);
  });

  it('reads a ledger again once it is older than maxAgeMs, notice or not', () => {
    let now = 0;
    const cache = postingTargetCache({ maxAccounts: 100, maxAgeMs: 1000, now: () => now });
    cache.keep(query({ ik: 'main' }, ['cash']), { ledger: ledger('l1', 'main'), accounts: [account('a1', 'cash')] }, 0);
    now = 1000;
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeDefined();
    now = 1001;
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it('drops everything past maxAccounts', () => {
    const cache = postingTargetCache({ maxAccounts: 2, maxAgeMs: 1000 });
    const l1 = ledger('l1', 'main');
    cache.keep(query({ id: 'l1' }, ['a', 'b']), { ledger: l1, accounts: [account('a', 'a'), account('b', 'b')] }, 0);
    expect(cache.size()).toBe(2);
    cache.keep(query({ id: 'l1' }, ['c']), { ledger: l1, accounts: [account('c', 'c')] }, cache.epoch());
    expect(cache.size()).toBe(0);
    expect(cache.find(query({ id: 'l1' }, ['a']))).toBeUndefined();
  });
});
