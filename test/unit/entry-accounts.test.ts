import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../src/db/ledgers.js';
import { entryAccounts } from '../../src/ledger/entries/entryAccounts.js';
import type { PostingContext, PostingTargets } from '../../src/ledger/entries/postingTargets.js';

// An entry's accounts are read in a second lookup when the first did not bring them; a ledger
// deleted between the two takes no entry, and says so rather than naming a missing account.

const ledger: LedgerRow = {
  workspaceId: 'w',
  id: 'l',
  ik: 'main',
  name: 'Main',
  type: 'double',
  balanceUtcOffset: '+00:00',
  schemaKey: null,
  schemaVersion: null,
  requestHash: 'h',
  created: new Date(0),
};

describe('entryAccounts', () => {
  it('refuses with ledger_not_found when the ledger is gone by the accounts lookup', async () => {
    const asked: unknown[] = [];
    const postingTargets: PostingTargets = {
      find: (query) => {
        asked.push(query);
        return Promise.resolve(undefined);
      },
      fresh: () => postingTargets,
      forget: () => {},
      held: () => 0,
    };
    const ctx = { sql: undefined as never, postingTargets } satisfies PostingContext;
    await expect(entryAccounts(ctx, ledger, undefined, [{ path: 'cash' }], {})).rejects.toMatchObject({
      code: 'ledger_not_found',
    });
    expect(asked).toEqual([{ workspaceId: 'w', match: { id: 'l' }, ids: [], paths: ['cash'], iks: [] }]);
  });
});
