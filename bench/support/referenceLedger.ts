import type { Sql } from '../../src/db/sql.js';

// The minimal SQL ledger each posting figure is read against: one PL/pgSQL call per transfer,
// row locks in id order, running balances, an entry row and two line rows, nothing else (no
// idempotency, no history, no conditions). What this PostgreSQL does per commit, as a ratio; and
// the same ledger posting many transfers a call, set-based, beside addLedgerEntries.

export async function installReferenceLedger(sql: Sql, accounts: number): Promise<void> {
  await sql.unsafe(`
    create table if not exists ref_accounts (id integer primary key, balance numeric not null default 0);
    create table if not exists ref_entries (id bigserial primary key, posted timestamptz not null default now());
    create table if not exists ref_lines (entry_id bigint not null, account_id integer not null, amount numeric not null,
                                          primary key (entry_id, account_id));
    create or replace function ref_transfer(p_from integer, p_to integer, p_amount numeric) returns bigint
    language plpgsql as $$
    declare
      v_entry bigint;
    begin
      perform 1 from ref_accounts where id in (p_from, p_to) order by id for update;
      update ref_accounts set balance = balance - p_amount where id = p_from;
      update ref_accounts set balance = balance + p_amount where id = p_to;
      insert into ref_entries default values returning id into v_entry;
      insert into ref_lines (entry_id, account_id, amount) values (v_entry, p_from, -p_amount), (v_entry, p_to, p_amount);
      return v_entry;
    end
    $$;
    -- Many transfers in one call, set-based: rows locked in id order, each balance updated once.
    create or replace function ref_transfers(p_from integer[], p_to integer[], p_amount numeric) returns void
    language plpgsql as $$
    begin
      perform 1 from ref_accounts where id = any(p_from || p_to) order by id for update;
      update ref_accounts a set balance = a.balance + d.delta
      from (select t.id, sum(t.delta) as delta
            from (select unnest(p_from) as id, -p_amount as delta union all select unnest(p_to), p_amount) t
            group by t.id) d
      where a.id = d.id;
      with entry as (
        select o, nextval('ref_entries_id_seq') as id from generate_series(1, cardinality(p_from)) o
      ), written as (
        insert into ref_entries (id) select id from entry
      )
      insert into ref_lines (entry_id, account_id, amount)
      select e.id, p_from[e.o], -p_amount from entry e
      union all
      select e.id, p_to[e.o], p_amount from entry e;
    end
    $$;
    insert into ref_accounts (id) select generate_series(0, ${accounts - 1}) on conflict do nothing;
  `);
}

/** Many transfers of the reference ledger in one call (from, to pairs of distinct accounts). */
export async function referenceTransfers(sql: Sql, pairs: readonly (readonly [number, number])[]): Promise<void> {
  await sql`select ref_transfers(${pairs.map(([from]) => from)}::integer[], ${pairs.map(([, to]) => to)}::integer[], 1)`;
}

/** One transfer of the reference ledger. */
export async function referenceTransfer(sql: Sql, from: number, to: number): Promise<void> {
  await sql`select ref_transfer(${from}, ${to}, 1)`;
}
