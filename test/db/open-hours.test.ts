import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketSeries } from '../../src/db/balanceReads.js';
import { foldBalanceQueue } from '../../src/db/balanceFold.js';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { postLedgerEntries, postLedgerEntry, type EntryPosting } from '../../src/db/ledgerEntries.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { entryPosting, postingLine } from '../support/postings.js';

// A strong account's balance row keeps the deltas of its latest local hour (its open hour): a
// posting in that hour writes no queue row; one in another hour closes the open hour into the
// queue. Reads and the invariant checker count an open hour as a queued delta, so history stays
// exact whichever way a delta travels.

let db: TestDatabase;
let sql: postgres.Sql;
let entries = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
  await sql`insert into workspaces (id, name) values ('w', 'w')`;
  // A ledger at +05:30, so local hours are not UTC hours.
  await sql`insert into ledgers (workspace_id, id, ik, name, request_hash, balance_utc_offset) values ('w', 'l', 'l', 'l', 'h', '+05:30')`;
  await sql`
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
    values ('w', 'l', 'cash', 'cash', 'cash', 1, 'asset', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'h'),
           ('w', 'l', 'owed', 'owed', 'owed', 1, 'liability', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'h'),
           ('w', 'l', 'slow', 'slow', 'slow', 1, 'liability', 'single', 'USD', '{"ownBalanceUpdates": "eventual"}', 'h')`;
});
afterAll(async () => {
  await db?.drop();
});

/** A transfer of `amount` from cash to `to`, posted at `posted` (UTC). */
function transfer(posted: string, amount: string, to = 'owed'): EntryPosting {
  entries += 1;
  const line = (accountId: string) => postingLine(`line-${entries}-${accountId}`, accountId, amount);
  return entryPosting({
    workspaceId: 'w',
    ledgerId: 'l',
    entryId: `ent-${entries}`,
    ik: `ik-${entries}`,
    requestHash: 'h',
    posted,
    lines: [line('cash'), line(to)],
  });
}

const openHour = async (account: string) => {
  const [row] = await sql<{ hour: string | null; amount: string; lines: string }[]>`
    select to_char(open_hour, 'YYYY-MM-DD HH24:MI') as hour, open_amount::text as amount, open_lines::text as lines
    from ledger_account_balances where workspace_id = 'w' and account_id = ${account}`;
  return row;
};
const queue = (account: string) => sql<{ hour: string; amount: string; lines: number; applied: boolean }[]>`
  select to_char(local_hour, 'YYYY-MM-DD HH24:MI') as hour, amount::text as amount, line_count as lines, balance_applied as applied
  from ledger_balance_queue where workspace_id = 'w' and account_id = ${account} order by seq`;
const hourly = async (account: string) =>
  (
    await bucketSeries(
      sql,
      { workspaceId: 'w', ledgerId: 'l', accountId: account, path: account, scope: 'own' },
      'hour',
      Date.UTC(2026, 2, 1),
      Date.UTC(2026, 2, 2),
      undefined,
    )
  ).changes
    .map(({ bucket, amount }) => `${bucket.slice(11, 16)} ${amount}`)
    .sort();

describe('the open hour of a balance row', () => {
  it('holds the deltas of the hour a strong account posts in, with no queue row', async () => {
    // 04:40 and 05:20 UTC are 10:10 and 10:50 at +05:30: one local hour.
    await postLedgerEntries(sql, [transfer('2026-03-01T04:40:00Z', '5'), transfer('2026-03-01T05:20:00Z', '7')]);
    await postLedgerEntry(sql, transfer('2026-03-01T05:25:00Z', '1'));

    expect(await openHour('cash')).toEqual({ hour: '2026-03-01 10:00', amount: '13', lines: '3' });
    expect(await queue('cash')).toEqual([]);
    expect(await hourly('cash')).toEqual(['10:00 13']);
    expect(await checkLedgerInvariants(sql)).toEqual([]);
  });

  it('closes into the queue when the account posts in another hour, and the fold files it', async () => {
    await postLedgerEntries(sql, [transfer('2026-03-01T05:31:00Z', '2')]);

    expect(await openHour('cash')).toEqual({ hour: '2026-03-01 11:00', amount: '2', lines: '1' });
    expect(await queue('cash')).toEqual([{ hour: '2026-03-01 10:00', amount: '13', lines: 3, applied: true }]);
    expect(await hourly('cash')).toEqual(['10:00 13', '11:00 2']);
    expect(await checkLedgerInvariants(sql)).toEqual([]);

    await foldBalanceQueue(sql, 1000);
    expect(await queue('cash')).toEqual([]);
    expect(await hourly('cash')).toEqual(['10:00 13', '11:00 2']);
    expect(await checkLedgerInvariants(sql)).toEqual([]);
  });

  it('keeps the latest hour of a group open and queues its earlier hours', async () => {
    // 12:05 and 09:15 local in one group: 12:00 opens, 11:00 closes, 09:00 goes straight to the queue.
    await postLedgerEntries(sql, [transfer('2026-03-01T06:35:00Z', '4'), transfer('2026-03-01T03:45:00Z', '3')]);

    expect(await openHour('cash')).toEqual({ hour: '2026-03-01 12:00', amount: '4', lines: '1' });
    expect(await queue('cash')).toEqual([
      { hour: '2026-03-01 11:00', amount: '2', lines: 1, applied: true },
      { hour: '2026-03-01 09:00', amount: '3', lines: 1, applied: true },
    ]);
    expect(await hourly('cash')).toEqual(['09:00 3', '10:00 13', '11:00 2', '12:00 4']);
    expect(await checkLedgerInvariants(sql)).toEqual([]);
  });

  it('moves to the hour of the latest posting, even an earlier one', async () => {
    await postLedgerEntry(sql, transfer('2026-03-01T02:30:00Z', '6'));

    expect(await openHour('cash')).toEqual({ hour: '2026-03-01 08:00', amount: '6', lines: '1' });
    expect((await queue('cash')).at(-1)).toEqual({ hour: '2026-03-01 12:00', amount: '4', lines: 1, applied: true });
    expect(await hourly('cash')).toEqual(['08:00 6', '09:00 3', '10:00 13', '11:00 2', '12:00 4']);
    expect(await checkLedgerInvariants(sql)).toEqual([]);
  });

  it('is not kept for an eventual account: its deltas queue unapplied, as before', async () => {
    await postLedgerEntries(sql, [transfer('2026-03-01T04:40:00Z', '9', 'slow')]);

    expect(await openHour('slow')).toBeUndefined();
    expect(await queue('slow')).toEqual([{ hour: '2026-03-01 10:00', amount: '9', lines: 1, applied: false }]);
    expect(await hourly('slow')).toEqual(['10:00 9']);
    expect(await checkLedgerInvariants(sql)).toEqual([]);
  });
});
