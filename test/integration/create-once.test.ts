import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.js';
import { sameFingerprint } from '../../src/core/idempotency.js';
import { createOnce } from '../../src/db/createOnce.js';
import { rollbackScope, transaction } from '../../src/db/rollback.js';
import type { Db } from '../../src/db/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

// The two SQL-side helpers every idempotent create goes through (db/createOnce.ts,
// db/rollback.ts), on a table of their own: create once or replay, refuse a reused key, answer
// the winner of a race, and roll back the loser's other writes.

type Row = { key: string; requestHash: string; note: string };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.sql`create table once_items (key text primary key, request_hash text not null, note text not null)`;
  await db.sql`create table once_side (key text not null, note text not null)`;
});
afterAll(() => db?.drop());

const find = async (sql: Db, key: string) =>
  (await sql<Row[]>`select key, request_hash as "requestHash", note from once_items where key = ${key}`)[0];
const insert = async (sql: Db, row: Row) =>
  (
    await sql<
      Row[]
    >`insert into once_items (key, request_hash, note) values (${row.key}, ${row.requestHash}, ${row.note})
                    on conflict (key) do nothing returning key, request_hash as "requestHash", note`
  )[0];
const sideNotes = async (key: string) =>
  (await db.sql<{ note: string }[]>`select note from once_side where key = ${key} order by note`).map(
    (row) => row.note,
  );

/** A create of `key` with fingerprint `hash` that also writes a side row, in a transaction of its own. */
const create = (
  key: string,
  hash: string,
  note: string,
  options: { lookFirst?: boolean; afterInsert?: () => Promise<void> } = {},
) =>
  createOnce({
    key: { field: 'ik', value: key },
    find: () => find(db.sql, key),
    same: sameFingerprint(hash),
    lookFirst: options.lookFirst,
    create: (taken) =>
      db.sql.begin(async (trx) => {
        await trx`insert into once_side (key, note) values (${key}, ${note})`;
        const row = (await insert(trx, { key, requestHash: hash, note })) ?? taken();
        await options.afterInsert?.();
        return row;
      }),
  });

async function until(condition: () => Promise<boolean>) {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createOnce', () => {
  it('creates once; the same request again is a replay of the stored row, another is idempotency_key_reused', async () => {
    expect(await create('a', 'h1', 'first')).toEqual({
      replayed: false,
      row: { key: 'a', requestHash: 'h1', note: 'first' },
    });
    expect(await create('a', 'h1', 'second')).toEqual({
      replayed: true,
      row: { key: 'a', requestHash: 'h1', note: 'first' },
    });
    await expect(create('a', 'h2', 'third')).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      message: 'ik a was already used for a different request.',
    });
    // Looked up first: neither the replay nor the refusal ran the create.
    expect(await sideNotes('a')).toEqual(['first']);
  });

  it("answers the winner of a race as a replay, and rolls back the loser's other writes", async () => {
    let inserted!: () => void;
    let release!: () => void;
    const insertedOnce = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The winner holds its row uncommitted until the loser waits on the same key.
    const winner = create('b', 'h1', 'winner', {
      lookFirst: false,
      afterInsert: () => {
        inserted();
        return gate;
      },
    });
    await insertedOnce;
    const loser = create('b', 'h1', 'loser', { lookFirst: false });
    await until(
      async () =>
        (await db.sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)
          .length > 0,
    );
    release();
    expect(await winner).toEqual({ replayed: false, row: { key: 'b', requestHash: 'h1', note: 'winner' } });
    expect(await loser).toEqual({ replayed: true, row: { key: 'b', requestHash: 'h1', note: 'winner' } });
    expect(await sideNotes('b')).toEqual(['winner']);
  });

  it('refuses a racing request with another payload, writing nothing of it', async () => {
    const concurrent = await Promise.allSettled([
      create('c', 'h1', 'one', { lookFirst: false }),
      create('c', 'h2', 'two', { lookFirst: false }),
    ]);
    const created = concurrent.filter((result) => result.status === 'fulfilled');
    const refused = concurrent.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect([created.length, refused.length]).toEqual([1, 1]);
    expect(refused[0].reason).toBeInstanceOf(DomainError);
    expect(refused[0].reason).toMatchObject({ code: 'idempotency_key_reused' });
    expect(await sideNotes('c')).toHaveLength(1);
  });

  it('lets errors of the create through, writing nothing', async () => {
    await expect(
      createOnce({
        key: { field: 'ik', value: 'd' },
        find: () => find(db.sql, 'd'),
        same: () => true,
        create: () =>
          db.sql.begin(async (trx) => {
            await trx`insert into once_side (key, note) values ('d', 'refused')`;
            throw new DomainError('invalid_input_provided', 'no');
          }),
      }),
    ).rejects.toMatchObject({ code: 'invalid_input_provided' });
    expect(await sideNotes('d')).toEqual([]);
  });
});

describe('transaction with a typed rollback', () => {
  it('commits and answers the value, or rolls back and answers the outcome', async () => {
    expect(
      await transaction(db.sql, async (trx) => {
        await trx`insert into once_side (key, note) values ('t', 'kept')`;
        return 1;
      }),
    ).toEqual({ committed: 1 });
    expect(
      await transaction(db.sql, async (trx, rollback: (outcome: { refused: number }) => never) => {
        await trx`insert into once_side (key, note) values ('t', 'undone')`;
        return rollback({ refused: 3 });
      }),
    ).toEqual({ rolledBack: { refused: 3 } });
    expect(await sideNotes('t')).toEqual(['kept']);
  });

  it("lets other errors through, and never takes another scope's rollback for its own", async () => {
    await expect(
      transaction(db.sql, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const outer = rollbackScope<string>();
    const inner = await transaction(db.sql, async () => outer.rollback('outer')).catch((error: unknown) =>
      outer.outcomeOf(error),
    );
    expect(inner).toEqual({ outcome: 'outer' });
  });
});
