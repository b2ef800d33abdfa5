import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { sqlRefusal } from '../../src/db/errors.js';
import type { NewLedgerAccount } from '../../src/db/ledgerAccounts.js';
import { postLedgerEntries, postLedgerEntry, type EntryPosting } from '../../src/db/ledgerEntries.js';
import { updateLedgerAccountRow } from '../../src/db/ledgerAccounts.js';
import { lockLedgerForAccountChange } from '../../src/db/ledgers.js';
import { findPostingTargets } from '../../src/db/postingLookup.js';
import { postingTargets } from '../../src/ledger/entries/postingTargets.js';
import { useTestDatabase } from '../support/database.js';
import { waitingOnLocks } from '../support/lockWaits.js';
import { entryPosting, postingLine } from '../support/postings.js';

// A server process keeps the ledgers and accounts it has read, and every posting states the
// ledger revision it was prepared from. The revision must move with everything a posting is
// prepared from (the ledger row, its accounts' changes and removals, a ledger inserted again),
// and a posting from a revision that moved must be refused with nothing written.

let sql: postgres.Sql;
let url: string;

useTestDatabase(async (created, createdUrl) => {
  sql = created;
  url = createdUrl;
  await sql`insert into workspaces (id, name) values ('w', 'w')`;
  await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', 'l', 'main', 'l', 'h')`;
  await sql`
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
    values ('w', 'l', 'cash', 'cash', 'cash', 1, 'asset', 'single', 'USD', '{}', 'h'),
           ('w', 'l', 'bank', 'bank', 'bank', 1, 'asset', 'single', 'USD', '{}', 'h'),
           ('w', 'l', 'spare', 'spare', 'spare', 1, 'asset', 'single', 'USD', '{}', 'h')`;
});

const revision = async () =>
  (await sql<{ revision: string }[]>`select posting_revision::text as revision from ledgers where id = 'l'`)[0]
    .revision;

/** Runs `change` and tells whether the ledger's revision moved. */
const moves = async (change: () => Promise<unknown>) => {
  const before = await revision();
  await change();
  return (await revision()) !== before;
};

let entries = 0;
const transfer = (ledgerRevision: string | null): EntryPosting =>
  entryPosting({
    workspaceId: 'w',
    ledgerId: 'l',
    ledgerRevision,
    entryId: `e${++entries}`,
    ik: `ik${entries}`,
    requestHash: 'h',
    posted: new Date().toISOString(),
    lines: [postingLine(`e${entries}-1`, 'cash', '-1'), postingLine(`e${entries}-2`, 'bank', '1')],
  });

const entryCount = async () => (await sql<{ n: number }[]>`select count(*)::int as n from ledger_entries`)[0].n;

describe('a ledger’s posting revision', () => {
  it('moves with the ledger row and with every change or removal of its accounts, not with a new account', async () => {
    expect(await moves(() => sql`update ledgers set name = 'renamed' where id = 'l'`)).toBe(true);
    expect(
      await moves(
        () => sql`update ledger_accounts set consistency = '{"ownBalanceUpdates": "strong"}' where id = 'cash'`,
      ),
    ).toBe(true);
    expect(await moves(() => sql`update ledger_accounts set name = 'Spare' where id = 'spare'`)).toBe(true);
    expect(await moves(() => sql`delete from ledger_accounts where id = 'spare'`)).toBe(true);
    expect(
      await moves(
        () => sql`
          insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
          values ('w', 'l', 'new', 'new', 'new', 1, 'asset', 'single', 'USD', '{}', 'h')`,
      ),
    ).toBe(false);
    // A statement that matches no account leaves it as it is (its trigger runs, over no rows).
    expect(await moves(() => sql`update ledger_accounts set name = 'x' where id = 'nowhere'`)).toBe(false);
  });

  it('is fresh when the ledger is inserted again with its old values, as a sandbox restore does', async () => {
    await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', 'gone', 'gone', 'g', 'h')`;
    const [{ before }] = await sql<
      { before: string }[]
    >`select posting_revision::text as before from ledgers where id = 'gone'`;
    await sql`delete from ledgers where id = 'gone'`;
    await sql`insert into ledgers (workspace_id, id, ik, name, request_hash, posting_revision) values ('w', 'gone', 'gone', 'g', 'h', ${before})`;
    const [{ after }] = await sql<
      { after: string }[]
    >`select posting_revision::text as after from ledgers where id = 'gone'`;
    expect(after).not.toBe(before);
  });

  it('stays when a posting removes the accounts it created for entries that were refused', async () => {
    const account = (path: string): NewLedgerAccount => ({
      workspaceId: 'w',
      ledgerId: 'l',
      id: `planned-${path}`,
      ik: path,
      path,
      parentId: null,
      depth: 1,
      name: null,
      type: 'asset',
      currencyMode: 'single',
      currencyCode: 'USD',
      consistency: { lines: 'eventual', ownBalanceUpdates: 'strong', groups: [] },
      linkedAccountId: null,
      requestHash: 'h',
    });
    const current = await revision();
    // The first entry is refused by its condition; the account it planned goes with it.
    const refused = {
      ...transfer(current),
      lines: [postingLine('r-1', 'planned-p1', '-1'), postingLine('r-2', 'bank', '1')],
      conditions: [{ index: 0, accountId: 'planned-p1', currency: 'USD', postcondition: { gte: '0' } }],
    };
    const outcomes = await postLedgerEntries(
      sql,
      [refused, transfer(current)],
      [{ ordinal: 1, account: account('p1') }],
    );
    expect(outcomes[0]).toEqual({ failedCondition: 0 });
    expect(await sql`select 1 from ledger_accounts where id = 'planned-p1'`).toHaveLength(0);
    expect(await revision()).toBe(current);
  });

  it('is what the lookup reads beside the accounts', async () => {
    const [target] = await findPostingTargets(sql, [
      { workspaceId: 'w', match: { ik: 'main' }, ids: [], paths: ['cash'], iks: [] },
    ]);
    expect(target!.ledger.postingRevision).toBe(await revision());
  });
});

describe('a posting prepared from a stale revision', () => {
  it('is refused, alone or in a group, with nothing written', async () => {
    const stale = await revision();
    await sql`update ledger_accounts set consistency = '{}' where id = 'cash'`;
    const before = await entryCount();

    const alone = await postLedgerEntry(sql, transfer(stale)).catch((error: unknown) => error);
    expect(sqlRefusal(alone)).toEqual({ name: 'posting_target_changed', detail: '["l"]' });
    const group = await postLedgerEntries(sql, [transfer(await revision()), transfer(stale)]).catch(
      (error: unknown) => error,
    );
    expect(sqlRefusal(group)?.name).toBe('posting_target_changed');
    expect(await entryCount()).toBe(before);

    // The current revision posts; no revision is not checked.
    expect(await postLedgerEntry(sql, transfer(await revision()))).toMatchObject({ replayed: false });
    expect(await postLedgerEntries(sql, [transfer(await revision()), transfer(null)])).toHaveLength(2);
    expect(await entryCount()).toBe(before + 3);
  });

  it('is refused once its ledger is deleted', async () => {
    await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', 'doomed', 'doomed', 'd', 'h')`;
    const [{ current }] = await sql<
      { current: string }[]
    >`select posting_revision::text as current from ledgers where id = 'doomed'`;
    await sql`update ledgers set deleted_at = now() where id = 'doomed'`;
    const posting = { ...transfer(current), ledgerId: 'doomed' };
    expect(sqlRefusal(await postLedgerEntry(sql, posting).catch((error: unknown) => error))?.name).toBe(
      'posting_target_changed',
    );
  });
});

describe('a revision changing while a posting is under way', () => {
  it('is waited for when a schema store holds the ledger, and the posting then refused', async () => {
    const stale = await revision();
    let posting: Promise<unknown> | undefined;
    await sql.begin(async (store) => {
      // As storeSchema does: the ledger locked FOR UPDATE for the whole transaction, then changed.
      await store`select 1 from ledgers where id = 'l' for update`;
      await store`update ledgers set schema_version = null where id = 'l'`;
      posting = postLedgerEntry(sql, transfer(stale)).catch((error: unknown) => error);
      await waitingOnLocks(sql, 1);
    });
    expect(sqlRefusal(await posting)?.name).toBe('posting_target_changed');
  });

  it('renews it for an account changed after a posting removed unseen accounts in the same transaction', async () => {
    const before = await revision();
    await sql.begin(async (trx) => {
      await trx`select remove_unneeded_accounts('[]'::jsonb, '{}')`;
      await trx`update ledger_accounts set name = 'Bank' where id = 'bank'`;
    });
    expect(await revision()).not.toBe(before);
  });

  it('takes an account change and a schema store in one order: ledger, then accounts, no deadlock', async () => {
    let change: Promise<unknown> | undefined;
    await sql.begin(async (store) => {
      await store`select 1 from ledgers where id = 'l' for update`;
      change = sql.begin(async (trx) => {
        await lockLedgerForAccountChange(trx, 'w', 'l');
        return updateLedgerAccountRow(trx, 'w', 'bank', { name: 'Bank account' });
      });
      await waitingOnLocks(sql, 1);
      await store`update ledger_accounts set name = 'Bank (schema)' where id = 'bank'`;
    });
    expect(await change).toMatchObject({ name: 'Bank account' });
  });
});

describe('what the server states with a group', () => {
  it('files each entry at the local hour and each line on the path it states', async () => {
    const before = await sql<
      { n: number }[]
    >`select count(*)::int as n from ledger_balance_queue where not balance_applied`;
    const stated = (n: number, strong: [boolean, boolean]): EntryPosting => {
      const posting = transfer(null);
      return {
        ...posting,
        // The ledger is at +00:00: +05:30 stated shows the statement used what it was given.
        ledgerUtcOffset: n === 1 ? '+05:30' : '+00:00',
        posted: '2026-03-01T10:10:00.000Z',
        lines: posting.lines.map((line, index) => ({ ...line, ownBalanceStrong: strong[index] })),
      };
    };
    // Both accounts are eventual in the database; the first entry states cash strong.
    await sql`update ledger_accounts set consistency = '{"ownBalanceUpdates": "eventual"}' where id in ('cash', 'bank')`;
    await postLedgerEntries(sql, [stated(1, [true, false]), stated(2, [false, false])]);
    const rows = await sql<{ account: string; hour: string; lines: number }[]>`
      select account_id as account, to_char(open_hour, 'YYYY-MM-DD HH24') as hour, open_lines::int as lines
      from ledger_account_balances where account_id in ('cash', 'bank') and open_hour = '2026-03-01 15:00'`;
    expect(rows).toEqual([{ account: 'cash', hour: '2026-03-01 15', lines: 1 }]);
    const [after] = await sql<
      { n: number }[]
    >`select count(*)::int as n from ledger_balance_queue where not balance_applied`;
    // Three lines queued: bank of the first entry (15:00), cash and bank of the second (10:00).
    const queued = await sql<{ account: string; hour: string }[]>`
      select account_id as account, to_char(local_hour, 'HH24') as hour from ledger_balance_queue
      where not balance_applied and local_hour::date = '2026-03-01' order by account_id, local_hour`;
    expect(queued).toEqual([
      { account: 'bank', hour: '10' },
      { account: 'bank', hour: '15' },
      { account: 'cash', hour: '10' },
    ]);
    expect(after.n - before[0].n).toBe(3);
    await sql`update ledger_accounts set consistency = '{}' where id in ('cash', 'bank')`;
  });
});

describe('posting targets held in memory', () => {
  /** A pool of its own that counts the statements it sends. */
  const counted = () => {
    let statements = 0;
    const pool = postgres(url, { max: 2, onnotice: () => {}, debug: () => (statements += 1) });
    return { sql: pool, statements: () => statements };
  };
  const cash = { workspaceId: 'w', match: { ik: 'main' }, ids: [], paths: ['cash'], iks: [] };

  it('answers what it has read without a statement, and reads a forgotten ledger again', async () => {
    const pool = counted();
    try {
      const targets = postingTargets(pool.sql);
      const first = await targets.find(cash);
      const read = pool.statements();
      expect(first!.held).toBeUndefined();
      expect(await targets.find(cash)).toEqual({ ...first, held: true });
      expect(await targets.find({ ...cash, match: { id: 'l' }, paths: [], ids: ['cash'] })).toMatchObject({
        accounts: [{ id: 'cash' }],
      });
      expect(pool.statements()).toBe(read);
      // The account and its ledger.
      expect(targets.held()).toBe(2);

      // Part of a query it does not hold (bank) is looked up, and kept beside what it held.
      expect((await targets.find({ ...cash, paths: ['cash', 'bank'] }))!.accounts.map((a) => a.id)).toEqual([
        'cash',
        'bank',
      ]);
      expect(pool.statements()).toBe(read + 1);
      expect(targets.held()).toBe(3);

      await sql`update ledger_accounts set consistency = '{"ownBalanceUpdates": "eventual"}' where id = 'cash'`;
      // Held, the old revision is answered: the posting will be refused and the ledger forgotten.
      expect((await targets.find(cash))!.accounts[0].consistency).toEqual({});
      targets.forget('w', 'l');
      // A fresh view reads past what is held, and keeps what it read.
      expect((await targets.fresh().find(cash))!.held).toBeUndefined();
      const fresh = (await targets.find(cash))!;
      expect(fresh.accounts[0].consistency).toEqual({ ownBalanceUpdates: 'eventual' });
      expect(fresh.ledger.postingRevision).toBe(await revision());
      expect(targets.held()).toBe(2);
    } finally {
      await pool.sql.end();
    }
  });

  it('holds nothing when turned off', async () => {
    const targets = postingTargets(sql, { cache: false });
    await targets.find(cash);
    expect(targets.held()).toBe(0);
  });
});
