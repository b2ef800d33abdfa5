import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/database.js';
import { waitingOnLocks } from '../support/lockWaits.js';

// Postings lock every balance row they will update in one global order before they judge a
// condition, so two postings never deadlock. Each case forces the interleaving that deadlocked
// when a posting locked only part of its rows first: a third transaction holds a row that both
// postings must wait for after their first locks, then lets go.

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
  await sql`insert into workspaces (id, name) values ('w', 'w')`;
  await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', 'l', 'l', 'l', 'h')`;
  // e: multi-currency, eventual (locked only when a condition bounds it); x: the shared counter-account.
  await sql`
    insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
    values ('w', 'l', 'e', 'e', 'e', 1, 'liability', 'multi', null, '{"ownBalanceUpdates": "eventual"}', 'h'),
           ('w', 'l', 'x', 'x', 'x', 1, 'asset', 'multi', null, '{"ownBalanceUpdates": "eventual"}', 'h'),
           ('w', 'l', 'k1', 'k1', 'k1', 1, 'asset', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'h'),
           ('w', 'l', 'k2', 'k2', 'k2', 1, 'asset', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'h'),
           ('w', 'l', 'k3', 'k3', 'k3', 1, 'asset', 'single', 'USD', '{"ownBalanceUpdates": "strong"}', 'h')`;
});

type Line = { account: string; currency: string; amount: string };
const post = (ik: string, lines: Line[], conditions: postgres.JSONValue[]) => sql`
  select posted_entry_id, failed_condition from post_ledger_entry_checked(
    'w', 'l', ${`ent-${ik}`}, ${ik}, 'h', null, null, null, now(), null, '[]', '[]', ${sql.json(conditions)},
    ${lines.map((_, i) => `line-${ik}-${i}`)}::text[], ${lines.map((line) => line.account)}::text[],
    ${lines.map((line) => line.currency)}::text[], ${lines.map((line) => line.amount)}::numeric[],
    ${lines.map(() => null)}::text[], ${lines.map(() => null)}::text[], '[]')`;

/**
 * Runs the first posting until it waits on the row a third transaction holds, then the second
 * until it waits too (or finishes), then lets go: both must post.
 */
async function raced(hold: string, first: () => Promise<unknown>, second: () => Promise<unknown>) {
  const holder = await sql.reserve();
  try {
    await holder`begin`;
    await holder.unsafe(hold);
    // postgres.js sends a query when it is awaited: start each one now.
    const one = Promise.resolve(first());
    await waitingOnLocks(sql, 1);
    let secondDone = false;
    const two = Promise.resolve(second()).finally(() => (secondDone = true));
    await waitingOnLocks(sql, 2, () => secondDone);
    await holder`rollback`;
    return await Promise.allSettled([one, two]);
  } finally {
    // A failed wait must not hand the pool a connection inside the holder's transaction.
    await holder`rollback`.catch(() => undefined);
    holder.release();
  }
}

describe('posting lock order', () => {
  it('locks every currency of a bounded multi-currency account before judging: two bounds on one account do not deadlock', async () => {
    const lines = (n: string): Line[] => [
      { account: 'e', currency: 'USD', amount: n },
      { account: 'e', currency: 'EUR', amount: n },
      { account: 'x', currency: 'USD', amount: n },
      { account: 'x', currency: 'EUR', amount: n },
    ];
    // The holder's uncommitted lines take the ids of both postings' first lines: each posting stops
    // at its line insert, after its locks and before it updates a balance row.
    const results = await raced(
      `insert into ledger_lines (workspace_id, ledger_id, id, entry_id, position, account_id, currency, amount, posted, created)
       values ('w', 'l', 'line-usd-bound-0', 'held-1', 1, 'e', 'USD', 0, now(), now()),
              ('w', 'l', 'line-eur-bound-0', 'held-2', 1, 'e', 'EUR', 0, now(), now())`,
      () => post('usd-bound', lines('1'), [{ index: 0, accountId: 'e', currency: 'USD', postcondition: { gte: '0' } }]),
      () => post('eur-bound', lines('1'), [{ index: 0, accountId: 'e', currency: 'EUR', postcondition: { gte: '0' } }]),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
  });

  it('creates and locks its rows in one ordered pass: a first posting to an account does not deadlock another', async () => {
    // k1 and k2 have balance rows, k3 not yet. The bounded posting must not hold k3 (by creating it)
    // while it waits for k1, or the plain posting, holding k2 and waiting for k3, deadlocks with it.
    await post(
      'seed',
      [
        { account: 'k1', currency: 'USD', amount: '5' },
        { account: 'k2', currency: 'USD', amount: '5' },
      ],
      [],
    );
    const line = (account: string): Line => ({ account, currency: 'USD', amount: '1' });
    const results = await raced(
      "select 1 from ledger_account_balances where workspace_id = 'w' and account_id = 'k1' for update",
      () =>
        post(
          'bounded',
          [line('k1'), line('k2'), line('k3')],
          [{ index: 0, accountId: 'k2', currency: 'USD', postcondition: { gte: '0' } }],
        ),
      () => post('plain', [line('k2'), line('k3')], []),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    const balances = await sql<{ account_id: string; own_balance: string }[]>`
      select account_id, own_balance::text from ledger_account_balances where account_id in ('k1', 'k2', 'k3') order by account_id`;
    expect(balances.map((row) => [row.account_id, row.own_balance])).toEqual([
      ['k1', '6'],
      ['k2', '7'],
      ['k3', '2'],
    ]);
  });
});
