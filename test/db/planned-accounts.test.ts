import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import type { NewLedgerAccount } from '../../src/db/ledgerAccounts.js';
import { postLedgerEntries, type PostingOutcome } from '../../src/db/ledgerEntries.js';
import { useTestDatabase } from '../support/database.js';
import { entryPosting, postingLine } from '../support/postings.js';
import { waitingOnLocks } from '../support/lockWaits.js';

// Template instances are created by the posting that first names them, with no ledger-wide
// lock: postings creating different paths never wait on each other, postings creating the same
// path wait for the first creator and use its row, and paths are taken in one order, so two
// postings that plan the same paths in opposite orders do not deadlock.

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
  await sql`insert into workspaces (id, name) values ('w', 'w')`;
  await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', 'l', 'l', 'l', 'h')`;
  await sql`
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
    values ('w', 'l', 'cash', 'cash', 'cash', 1, 'asset', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'h')`;
});

const planned = (ik: string, path: string): NewLedgerAccount => ({
  workspaceId: 'w',
  ledgerId: 'l',
  id: `${ik}-${path}`,
  ik: path,
  path,
  parentId: null,
  depth: 1,
  name: null,
  type: 'liability',
  currencyMode: 'single',
  currencyCode: 'USD',
  consistency: { lines: 'eventual', ownBalanceUpdates: 'strong', groups: [] },
  linkedAccountId: null,
  requestHash: 'schema',
});

/** One entry moving 1 from cash to each of `paths` (planned by this entry), posted as a group of one. */
function postCreating(ik: string, paths: string[]): Promise<PostingOutcome[]> {
  const posting = entryPosting({
    workspaceId: 'w',
    ledgerId: 'l',
    entryId: `ent-${ik}`,
    ik,
    requestHash: ik,
    posted: '2026-11-25T12:00:00Z',
    lines: [
      ...paths.map((path, index) => postingLine(`line-${ik}-${index}`, `${ik}-${path}`, '1')),
      postingLine(`line-${ik}-cash`, 'cash', String(paths.length)),
    ],
  });
  return postLedgerEntries(
    sql,
    [posting],
    paths.map((path) => ({ ordinal: 1, account: planned(ik, path) })),
  );
}

/** Runs `body` while another transaction holds an uncommitted account at `path`; ends that transaction as told. */
async function holdingPath<T>(path: string, body: () => Promise<T>, end: 'commit' | 'rollback'): Promise<T> {
  const holder = await sql.reserve();
  try {
    await holder`begin`;
    await holder`
      insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
      values ('w', 'l', ${`held-${path}`}, ${path}, ${path}, 1, 'liability', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'schema')`;
    const result = await body();
    await holder.unsafe(end);
    return result;
  } finally {
    await holder`rollback`.catch(() => undefined);
    holder.release();
  }
}

const accountsAt = (paths: string[]) =>
  sql<
    { path: string; id: string }[]
  >`select path, id from ledger_accounts where workspace_id = 'w' and path = any(${paths}) order by path`;

describe('creating template instances while posting', () => {
  it('waits on no other path: a posting creating one account is not held up by another creating a different one', async () => {
    const outcomes = await holdingPath('free:a', () => postCreating('free', ['free:b']), 'rollback');
    expect(outcomes[0]).toMatchObject({ replayed: false });
    expect(await accountsAt(['free:a', 'free:b'])).toEqual([{ path: 'free:b', id: 'free-free:b' }]);
  });

  it('takes paths in one order: two postings planning the same paths in opposite orders both post', async () => {
    const settled = await holdingPath(
      'race:a',
      async () => {
        // Unordered, one would take race:b and wait for race:a while the other holds race:a and waits for race:b.
        const one = postCreating('one', ['race:b', 'race:a']);
        const two = postCreating('two', ['race:a', 'race:b']);
        await waitingOnLocks(sql, 2);
        return { one, two };
      },
      'rollback',
    );
    const [one, two] = await Promise.all([settled.one, settled.two]);
    expect([one[0], two[0]]).toMatchObject([{ replayed: false }, { replayed: false }]);
    // One of them created both; the other was pointed at those rows.
    expect([one[0], two[0]].filter((outcome) => 'remapped' in outcome && outcome.remapped)).toHaveLength(1);
    const accounts = await accountsAt(['race:a', 'race:b']);
    expect(accounts).toHaveLength(2);
    const [{ lines }] = await sql<{ lines: number }[]>`
      select count(*)::int as lines from ledger_lines
      where workspace_id = 'w' and account_id = any(${accounts.map((account) => account.id)})`;
    expect(lines).toBe(4);
  });

  it('uses the account a concurrent posting committed at the same path, and says its lines were remapped', async () => {
    const outcome = await holdingPath(
      'shared:a',
      async () => {
        const posting = postCreating('late', ['shared:a']);
        await waitingOnLocks(sql, 1);
        // Wrapped: returning the promise itself would wait for it inside the holder's transaction.
        return { posting };
      },
      'commit',
    );
    expect((await outcome.posting)[0]).toMatchObject({ replayed: false, remapped: true });
    const [line] = await sql<{ accountId: string }[]>`
      select account_id as "accountId" from ledger_lines where workspace_id = 'w' and entry_id = 'ent-late' and position = 1`;
    expect(line.accountId).toBe('held-shared:a');
    expect(await accountsAt(['shared:a'])).toEqual([{ path: 'shared:a', id: 'held-shared:a' }]);
  });
});
