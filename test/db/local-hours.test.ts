import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { ledgerLocalHour } from '../../src/core/calendar.js';
import { formatUtcOffset, MAX_OFFSET_MINUTES, MIN_OFFSET_MINUTES } from '../../src/core/time.js';
import { useTestDatabase } from '../support/database.js';

// The server states each entry's local hour to the group statement (ledgerLocalHour), which then
// files balances by it: it must be, to the character, what the database's ledger_local_hour says.

let sql: postgres.Sql;

useTestDatabase(async (created) => {
  sql = created;
});

const YEAR_MS = 365.25 * 24 * 3_600_000;

describe('the local hour of a posting', () => {
  it('is the database’s for instants across the years and every offset, at hour edges too', async () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const cases: { posted: string; offset: string }[] = [];
    for (let n = 0; n < 2000; n++) {
      // Years 1 to 9999, and every fifth case on an hour edge (±1 ms).
      let instant = Math.floor(new Date(0).setUTCFullYear(1) + random() * 9998 * YEAR_MS);
      if (n % 5 === 0) instant = Math.round(instant / 3_600_000) * 3_600_000 + (n % 10 === 0 ? -1 : 0);
      const minutes =
        MIN_OFFSET_MINUTES + Math.floor(random() * ((MAX_OFFSET_MINUTES - MIN_OFFSET_MINUTES) / 15 + 1)) * 15;
      cases.push({ posted: new Date(instant).toISOString(), offset: formatUtcOffset(minutes) });
    }
    cases.push(
      { posted: '0001-01-01T00:30:00.000Z', offset: '-01:00' },
      { posted: '9999-12-31T23:30:00.000Z', offset: '+14:00' },
    );
    const rows = await sql<{ hour: string; year: number }[]>`
      select to_char(ledger_local_hour(c.posted, c.offset), 'YYYY-MM-DD HH24:MI:SS') as hour,
             extract(year from ledger_local_hour(c.posted, c.offset))::int as year
      from unnest(${cases.map((c) => c.posted)}::timestamptz[], ${cases.map((c) => c.offset)}::text[]) with ordinality as c(posted, "offset", n)
      order by c.n`;
    const mismatches = cases.flatMap((c, index) => {
      const ours = ledgerLocalHour(c.posted, c.offset);
      const { hour, year } = rows[index];
      // Outside years 1 to 9999 the server states nothing and the database computes it.
      const agrees = ours === undefined ? year < 1 || year > 9999 : ours === hour;
      return agrees ? [] : [{ ...c, ours, theirs: hour }];
    });
    expect(mismatches).toEqual([]);
    expect(cases.filter((c) => ledgerLocalHour(c.posted, c.offset) === undefined)).toHaveLength(2);
  });
});
