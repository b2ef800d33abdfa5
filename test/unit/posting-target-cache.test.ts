import { describe, expect, it } from 'vitest';
import type { LedgerAccountRow } from '../../src/db/ledgerAccounts.js';
import type { TargetLedger, TargetQuery } from '../../src/db/postingLookup.js';
import { postingTargetCache } from '../../src/ledger/entries/postingTargetCache.js';

// What the cache answers from memory is what one lookup read, as of one revision of the ledger:
// never part of a query, never accounts of two revisions mixed, never an older revision over a newer
// one it holds.

const ledger = (id: string, ik: string, postingRevision: string) =>
  ({ workspaceId: 'w', id, ik, name: 'l', schemaContentHash: null, postingRevision }) as unknown as TargetLedger;
const account = (id: string, path: string, name = id) => ({ id, ik: `ik-${id}`, path, name }) as LedgerAccountRow;
const query = (match: TargetQuery['match'], paths: string[] = [], ids: string[] = []): TargetQuery => ({
  workspaceId: 'w',
  match,
  ids,
  paths,
  iks: [],
});

describe('the posting-target cache', () => {
  it('answers a query whose ledger and every named account it holds, by id, path or ik, marked held', () => {
    const cache = postingTargetCache({ maxAccounts: 100 });
    cache.keep({ ledger: ledger('l1', 'main', '7'), accounts: [account('a1', 'cash')] });
    const found = cache.find(query({ ik: 'main' }, ['cash']));
    expect(found?.accounts.map((a) => a.id)).toEqual(['a1']);
    expect(found?.held).toBe(true);
    expect(cache.find(query({ id: 'l1' }, [], ['a1']))?.ledger.id).toBe('l1');
    expect(cache.find({ ...query({ id: 'l1', ik: 'main' }), iks: ['ik-a1'] })?.accounts).toHaveLength(1);
    // Part of a query is no answer: the rest may exist in the database.
    expect(cache.find(query({ ik: 'main' }, ['cash', 'bank']))).toBeUndefined();
    // An id and an ik of different ledgers match nothing, as in the database.
    expect(cache.find(query({ id: 'l1', ik: 'other' }))).toBeUndefined();
    // One account and its ledger.
    expect(cache.size()).toBe(2);
  });

  it('adds what a lookup of the same revision read, and replaces everything with a newer revision', () => {
    const cache = postingTargetCache({ maxAccounts: 100 });
    cache.keep({ ledger: ledger('l1', 'main', '7'), accounts: [account('a1', 'cash')] });
    cache.keep({ ledger: ledger('l1', 'main', '7'), accounts: [account('a2', 'bank')] });
    expect(cache.find(query({ ik: 'main' }, ['cash', 'bank']))?.accounts).toHaveLength(2);

    cache.keep({ ledger: ledger('l1', 'main', '12'), accounts: [account('a2', 'bank', 'renamed')] });
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeUndefined();
    expect(cache.find(query({ ik: 'main' }, ['bank']))?.accounts[0].name).toBe('renamed');
    expect(cache.size()).toBe(2);

    // A lookup that read before the change and answered after it is not kept (12 > 9, as numbers).
    cache.keep({ ledger: ledger('l1', 'main', '9'), accounts: [account('a1', 'cash')] });
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeUndefined();
    expect(cache.find(query({ ik: 'main' }))?.ledger.postingRevision).toBe('12');
  });

  it('forgets a ledger by id and its ik with it, not another ledger that took its ik', () => {
    const cache = postingTargetCache({ maxAccounts: 100 });
    cache.keep({ ledger: ledger('l1', 'main', '1'), accounts: [account('a1', 'cash')] });
    cache.keep({ ledger: ledger('l2', 'other', '2'), accounts: [account('a2', 'cash')] });
    cache.forget('w', 'l1');
    expect(cache.find(query({ ik: 'main' }, ['cash']))).toBeUndefined();
    expect(cache.find(query({ id: 'l1' }, ['cash']))).toBeUndefined();
    expect(cache.find(query({ ik: 'other' }, ['cash']))?.ledger.id).toBe('l2');
    expect(cache.size()).toBe(2);

    // l3 took the ik main; forgetting l1 again leaves l3 found by it.
    cache.keep({ ledger: ledger('l1', 'main', '1'), accounts: [] });
    cache.keep({ ledger: ledger('l3', 'main', '5'), accounts: [] });
    cache.forget('w', 'l1');
    expect(cache.find(query({ ik: 'main' }))?.ledger.id).toBe('l3');
  });

  it('drops everything past its size, each ledger counting as one, then fills again', () => {
    const cache = postingTargetCache({ maxAccounts: 3 });
    cache.keep({ ledger: ledger('l1', 'main', '1'), accounts: [account('a1', 'p1'), account('a2', 'p2')] });
    expect(cache.size()).toBe(3);
    // A ledger alone counts too: many ledgers named once each stay within the bound.
    cache.keep({ ledger: ledger('l2', 'other', '1'), accounts: [] });
    expect(cache.size()).toBe(0);
    expect(cache.find(query({ ik: 'main' }))).toBeUndefined();
    cache.keep({ ledger: ledger('l2', 'other', '1'), accounts: [account('a3', 'p3')] });
    expect(cache.find(query({ ik: 'other' }, ['p3']))?.accounts).toHaveLength(1);
  });

  it('holds a late lookup of an older revision once the newer is forgotten: the posting check refuses it', () => {
    const cache = postingTargetCache({ maxAccounts: 100 });
    cache.keep({ ledger: ledger('l1', 'main', '12'), accounts: [account('a1', 'cash')] });
    cache.forget('w', 'l1');
    // Nothing to compare with: what the cache holds is never trusted beyond the revision it names.
    cache.keep({ ledger: ledger('l1', 'main', '9'), accounts: [account('a1', 'cash')] });
    expect(cache.find(query({ ik: 'main' }, ['cash']))?.ledger.postingRevision).toBe('9');
  });
});
