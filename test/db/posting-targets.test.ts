import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostingTargets, type TargetQuery } from '../../src/db/postingLookup.js';
import { postingTargets } from '../../src/ledger/entries/postingTargets.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The lookups of entries that arrive together share one statement: each still answers exactly
// what it would alone (its own workspace, ledger and accounts), and one lookup PostgreSQL
// refuses fails only itself.

let db: TestDatabase;
let sql: postgres.Sql;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = db.sql;
  await sql`insert into workspaces (id, name) values ('w1', 'w1'), ('w2', 'w2')`;
  await sql`
    insert into ledgers (workspace_id, id, ik, name, request_hash, deleted_at) values
      ('w1', 'l1', 'main', 'l', 'h', null), ('w1', 'l2', 'other', 'l', 'h', null),
      ('w2', 'l3', 'main', 'l', 'h', null), ('w1', 'l0', 'gone', 'l', 'h', now())`;
  const account = (workspace: string, ledger: string, id: string, path: string) =>
    sql`insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
        values (${workspace}, ${ledger}, ${id}, ${`ik-${id}`}, ${path}, 1, 'asset', 'single', 'USD', '{}', 'h')`;
  await account('w1', 'l1', 'a1', 'cash');
  await account('w1', 'l1', 'a2', 'bank');
  await account('w1', 'l2', 'a3', 'cash');
  await account('w2', 'l3', 'a4', 'cash');
});
afterAll(async () => {
  await db?.drop();
});

const query = (workspaceId: string, match: TargetQuery['match'], refs: Partial<TargetQuery> = {}): TargetQuery => ({
  workspaceId,
  match,
  ids: [],
  paths: [],
  iks: [],
  ...refs,
});

const summary = (target: Awaited<ReturnType<typeof findPostingTargets>>[number]) =>
  target && { ledger: target.ledger.id, accounts: target.accounts.map((account) => account.id).sort() };

describe('posting targets of several entries in one statement', () => {
  it('answers each lookup its own ledger and only that ledger’s accounts, in order', async () => {
    const targets = await findPostingTargets(sql, [
      query('w1', { ik: 'main' }, { paths: ['cash', 'nowhere'], iks: ['ik-a2'] }),
      query('w2', { ik: 'main' }, { paths: ['cash'], ids: ['a1'] }),
      query('w1', { id: 'l2', ik: 'other' }, { ids: ['a3', 'a1'] }),
      query('w1', { id: 'l2', ik: 'main' }),
      query('w1', { ik: 'gone' }),
      query('w2', { id: 'l1' }),
      query('w1', { id: 'l1' }, { ids: ['a1'], paths: ['cash'] }),
    ]);
    expect(targets.map(summary)).toEqual([
      { ledger: 'l1', accounts: ['a1', 'a2'] },
      // Another workspace's ledger of the same ik, and never another workspace's account.
      { ledger: 'l3', accounts: ['a4'] },
      { ledger: 'l2', accounts: ['a3'] },
      // Id and ik of different ledgers, a deleted ledger, a ledger of another workspace: none.
      undefined,
      undefined,
      undefined,
      // One account named twice may be listed twice.
      { ledger: 'l1', accounts: ['a1', 'a1'] },
    ]);
    expect(targets[0]!.ledger).toMatchObject({ workspaceId: 'w1', ik: 'main', schemaContentHash: null });
    expect(targets[0]!.accounts[0].created).toBeInstanceOf(Date);
  });

  it('answers every lookup of one turn as it would alone', async () => {
    const targets = postingTargets(sql);
    const queries = Array.from({ length: 40 }, (_, n) =>
      n % 2 === 0 ? query('w1', { ik: 'main' }, { paths: ['bank'] }) : query('w2', { ik: 'main' }, { paths: ['cash'] }),
    );
    const answers = await Promise.all(queries.map((q) => targets.find(q)));
    expect(answers.map(summary)).toEqual(
      queries.map((_, n) => (n % 2 === 0 ? { ledger: 'l1', accounts: ['a2'] } : { ledger: 'l3', accounts: ['a4'] })),
    );
  });

  it('fails only the lookup PostgreSQL refuses, not the others of its statement', async () => {
    const targets = postingTargets(sql);
    const answers = await Promise.allSettled([
      targets.find(query('w1', { ik: 'main' }, { paths: ['cash'] })),
      // A NUL character is text PostgreSQL cannot store: the shared statement fails as a whole.
      targets.find(query('w1', { ik: 'main' }, { paths: ['ca\u0000sh'] })),
      targets.find(query('w2', { ik: 'main' }, { paths: ['cash'] })),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(answers[0].status === 'fulfilled' && summary(answers[0].value)).toEqual({ ledger: 'l1', accounts: ['a1'] });
    expect(answers[2].status === 'fulfilled' && summary(answers[2].value)).toEqual({ ledger: 'l3', accounts: ['a4'] });
  });
});

describe('posting targets held in memory', () => {
  /** A pool of its own that counts the statements it sends. */
  const counted = () => {
    let statements = 0;
    const pool = postgres(db.url, { max: 2, onnotice: () => {}, debug: () => (statements += 1) });
    pools.push(pool);
    return { sql: pool, statements: () => statements };
  };
  const pools: postgres.Sql[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });
  /** Polls until `read` answers what `expected` accepts: notices arrive after the changing commit. */
  const eventually = async <T>(read: () => Promise<T>, expected: (value: T) => boolean) => {
    const deadline = Date.now() + 5000;
    let value = await read();
    while (!expected(value) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      value = await read();
    }
    return value;
  };
  const listening = (targets: ReturnType<typeof postingTargets>) =>
    eventually(
      async () => {
        await targets.find(query('w1', { ik: 'main' }, { paths: ['cash'] }));
        return targets.held();
      },
      (held) => held > 0,
    );

  it('answers a lookup it has read from memory, without a statement', async () => {
    const pool = counted();
    const targets = postingTargets(pool.sql);
    await listening(targets);
    const before = pool.statements();
    const target = await targets.find(query('w1', { ik: 'main' }, { paths: ['cash'], ids: ['a1'] }));
    expect(summary(target)).toEqual({ ledger: 'l1', accounts: ['a1', 'a1'] });
    expect(pool.statements()).toBe(before);
    // An account it has not read yet (another process made it, say) is looked up.
    expect(summary(await targets.find(query('w1', { ik: 'main' }, { paths: ['bank'] })))).toEqual({
      ledger: 'l1',
      accounts: ['a2'],
    });
    expect(pool.statements()).toBe(before + 1);
  });

  it('drops a ledger when another connection changes one of its accounts or the ledger itself', async () => {
    const targets = postingTargets(sql);
    await listening(targets);
    const cash = () => targets.find(query('w1', { ik: 'main' }, { paths: ['cash'] }));
    expect((await cash())!.accounts[0].consistency).toEqual({});

    await sql`update ledger_accounts set consistency = '{"ownBalanceUpdates": "eventual"}' where workspace_id = 'w1' and id = 'a1'`;
    const changed = await eventually(
      cash,
      (target) => target!.accounts[0].consistency.ownBalanceUpdates === 'eventual',
    );
    expect(changed!.accounts[0].consistency).toEqual({ ownBalanceUpdates: 'eventual' });

    // Deleted, the ledger takes no entry; its ik, reused by a new ledger, names that one.
    await sql`update ledgers set deleted_at = now() where workspace_id = 'w1' and id = 'l1'`;
    expect(await eventually(cash, (target) => target === undefined)).toBeUndefined();
    await sql`update ledgers set ik = 'main-old' where workspace_id = 'w1' and id = 'l1'`;
    await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w1', 'l9', 'main', 'l', 'h')`;
    await sql`insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
              values ('w1', 'l9', 'a9', 'ik-a9', 'cash', 1, 'asset', 'single', 'USD', '{}', 'h')`;
    expect(summary(await cash())).toEqual({ ledger: 'l9', accounts: ['a9'] });
  });

  it('holds nothing when turned off', async () => {
    const targets = postingTargets(sql, { cache: false });
    await targets.find(query('w2', { ik: 'main' }, { paths: ['cash'] }));
    expect(targets.held()).toBe(0);
  });
});
