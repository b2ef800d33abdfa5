import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainErrorFromDatabase, SQL_REFUSALS, sqlRefusal } from '../../src/db/errors.js';
import type { Sql } from '../../src/db/sql.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const FUNCTIONS_DIR = fileURLToPath(new URL('../../src/db/functions/', import.meta.url));
const sources = fs
  .readdirSync(FUNCTIONS_DIR)
  .filter((name) => name.endsWith('.sql'))
  .map((name) => fs.readFileSync(path.join(FUNCTIONS_DIR, name), 'utf8'))
  .join('\n');
const readme = fs.readFileSync(path.join(FUNCTIONS_DIR, 'README.md'), 'utf8');

describe('refusals raised in SQL', () => {
  it('each carry a SQLSTATE of class TL that db/errors.ts decodes, and the README lists', () => {
    const raises = [...sources.matchAll(/raise exception (.*);/g)].map((match) => match[1]);
    expect(raises.length).toBeGreaterThanOrEqual(SQL_REFUSALS.size);
    for (const raise of raises) {
      const [, code, message] = /^using errcode = '([A-Z0-9]{5})', message = '([a-z_]+)'/.exec(raise) ?? [];
      expect(code, raise).toMatch(/^TL\d{3}$/);
      expect(SQL_REFUSALS.get(code), raise).toBe(message);
    }
    const raised = new Set(raises.map((raise) => /errcode = '(\w+)'/.exec(raise)![1]));
    for (const [code, name] of SQL_REFUSALS) {
      expect(raised.has(code), code).toBe(true);
      expect(readme).toMatch(new RegExp(`\\| \`${code}\` \\| \`${name}\` \\|`));
    }
    // Caught by code too, never by message.
    expect(sources).not.toMatch(/sqlerrm|P0001|when raise_exception/);
  });

  describe('decoded by code', () => {
    let db: TestDatabase;
    let sql: Sql;
    beforeAll(async () => {
      db = await createTestDatabase();
      sql = db.sql;
      await sql`insert into workspaces (id, name) values ('w', 'w')`;
      await sql`insert into products (workspace_id, id, code, description) values ('w', 'p1', 'P1', 'a product')`;
      await sql`insert into ledgers (workspace_id, id, ik, name, request_hash) values ('w', 'l', 'l', 'l', 'h')`;
      await sql`
        insert into ledger_accounts (workspace_id, ledger_id, id, ik, path, depth, type, currency_mode, currency_code, consistency, request_hash)
        values ('w', 'l', 'a', 'a', 'a', 1, 'asset', 'single', 'USD', '{}', 'h'),
               ('w', 'l', 'b', 'b', 'b', 1, 'asset', 'single', 'USD', '{}', 'h')`;
    });
    afterAll(async () => {
      await db?.drop();
    });

    const item = (n: number, productRef: string, userId: string | null) => ({
      id: `i${n}`,
      position: n,
      type: 'payin',
      product_ref: productRef,
      user_id: userId,
      user_external_id: userId ? null : `ext${n}`,
      new_user_id: `u${n}`,
      description: 'd',
      currency: 'USD',
      unit_price: '1',
      quantity: 1,
      amount: '1',
      tags: [],
    });
    const createInvoice = (id: string, items: postgres.JSONValue[]) =>
      sql`select * from create_invoice('w', ${id}, '[]', 'h', ${sql.json(items)})`;

    async function refusalOf(query: Promise<unknown>) {
      const error = await query.then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(postgres.PostgresError);
      return {
        code: (error as { code?: string }).code,
        refusal: sqlRefusal(error),
        domain: domainErrorFromDatabase(error),
      };
    }

    it('unknown_product (TL003) and unknown_user (TL004), with the failing items as detail', async () => {
      expect(
        await refusalOf(createInvoice('inv1', [item(0, 'P1', null), item(1, 'nope', null), item(2, 'nope', null)])),
      ).toEqual({
        code: 'TL003',
        refusal: { name: 'unknown_product', detail: '[1, 2]' },
        domain: undefined,
      });
      expect(await refusalOf(createInvoice('inv2', [item(0, 'P1', 'nobody'), item(1, 'p1', null)]))).toEqual({
        code: 'TL004',
        refusal: { name: 'unknown_user', detail: '[0]' },
        domain: undefined,
      });
    });

    const post = (
      fn: 'post_ledger_entry' | 'post_ledger_entry_checked',
      ik: string,
      amount: string,
      conditions: postgres.JSONValue[],
    ) => sql`
      select * from ${sql(fn)}('w', 'l', ${`e-${fn}-${ik}`}, ${ik}, 'h', null, null, null, now(), null, '[]', '[]', ${sql.json(conditions)},
                               ${[`${fn}-${ik}-1`, `${fn}-${ik}-2`]}::text[], '{a,b}'::text[], '{USD,USD}'::text[],
                               ${[amount, `-${amount}`]}::numeric[], '{null,null}'::text[], '{null,null}'::text[], '[]')`;

    it('entry_condition_failed (TL001), with the condition index as detail; the wrapper answers it as a row', async () => {
      const conditions = [
        { index: 0, accountId: 'b', currency: 'USD', postcondition: { lte: '0' } },
        { index: 1, accountId: 'a', currency: 'USD', postcondition: { gte: '10' } },
      ];
      expect(await refusalOf(post('post_ledger_entry', 'c1', '5', conditions))).toEqual({
        code: 'TL001',
        refusal: { name: 'entry_condition_failed', detail: '1' },
        domain: undefined,
      });
      const [row] = await post('post_ledger_entry_checked', 'c2', '5', conditions);
      expect(row).toMatchObject({ posted_entry_id: null, failed_condition: 1 });
    });

    it('balance_out_of_range (TL002), which is invalid_input_provided wherever it is raised', async () => {
      const max = (2n ** 120n - 1n).toString();
      await post('post_ledger_entry', 'r1', max, []);
      const refused = await refusalOf(post('post_ledger_entry_checked', 'r2', '1', []));
      expect(refused).toMatchObject({ code: 'TL002', refusal: { name: 'balance_out_of_range', detail: undefined } });
      expect(refused.domain?.code).toBe('invalid_input_provided');
    });

    it('version_conflict (TL011), with the version the invoice is at (empty when it is gone) and nothing written', async () => {
      await sql`insert into invoices (workspace_id, id, tags, request_hash) values ('w', 'inv', '[]', 'h')`;
      const change = (invoiceId: string, basedOn: number) =>
        sql`select * from change_invoice('w', ${invoiceId}, ${basedOn}, '[]', '[]', '{}', null, '[]', '{}', '[]')`;
      await change('inv', 1);
      expect(await refusalOf(change('inv', 1))).toMatchObject({
        code: 'TL011',
        refusal: { name: 'version_conflict', detail: '2' },
      });
      expect(await refusalOf(change('gone', 1))).toMatchObject({
        refusal: { name: 'version_conflict', detail: '' },
      });
      const [{ versions }] = await sql`select count(*)::int as versions from invoice_versions where invoice_id = 'inv'`;
      expect(versions).toBe(1);
    });
  });
});
