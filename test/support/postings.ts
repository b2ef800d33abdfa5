import type { EntryPosting } from '../../src/db/ledgerEntries.js';

// Entries as the posting functions take them, for tests and benchmarks that call those directly:
// the fields a caller cares about, every other one empty.

/** A line of `amount` in `currency` to the account, with no key, description or tags. */
export function postingLine(
  id: string,
  accountId: string,
  amount: string,
  currency = 'USD',
): EntryPosting['lines'][number] {
  return { id, accountId, currency, amount, key: null, description: null, tags: [] };
}

type Required = 'workspaceId' | 'ledgerId' | 'entryId' | 'ik' | 'requestHash' | 'posted' | 'lines';

/** An untyped entry: no type, parameters, description, tags, groups or conditions unless given; no revision checked. */
export function entryPosting(fields: Pick<EntryPosting, Required> & Partial<EntryPosting>): EntryPosting {
  return {
    ledgerRevision: null,
    type: null,
    typeVersion: null,
    parameters: null,
    description: null,
    tags: [],
    groups: [],
    conditions: [],
    ...fields,
  };
}
