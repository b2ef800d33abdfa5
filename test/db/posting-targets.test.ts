import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { findPostingTargets, type TargetQuery } from '../../src/db/postingLookup.js';
import { postingTargets } from '../../src/ledger/entries/postingTargets.js';
import { useTestDatabase } from '../support/database.js';

// The lookups of entries that arrive together share one statement: each still answers exactly
// what it would alone (its own workspace, ledger and accounts), and one lookup PostgreSQL
// refuses fails only itself.

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
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
