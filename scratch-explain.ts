import { ensureDatabase } from './src/db/database.js';
import { startEmbeddedPostgres } from './src/db/embedded.js';
import { connect } from './src/db/sql.js';
import { fetchToken } from './test/support/token.js';
import { startTally, stopTally } from './test/support/tallyProcess.js';
import { runLoad } from './bench/support/load.js';
const pg = await startEmbeddedPostgres({ dataDir: '', ephemeral: true, fast: false, settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } });
const url = await ensureDatabase(pg.url, 'x');
const tally = await startTally({ DATABASE_URL: url, BOOTSTRAP_CLIENT_ID: 'b', BOOTSTRAP_CLIENT_SECRET: 'bench-secret' }, { startOutputOnly: true });
const token = await fetchToken(tally.baseUrl, 'b', 'bench-secret');
const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const post = (p: string, b: object) => fetch(tally.baseUrl + p, { method: 'POST', headers: h, body: JSON.stringify(b) }).then(r => r.status);
for (const code of ['beans', 'delivery']) await post('/billing/products', { code, description: code, paid_by_roles: [{ name: 'buyer' }] });
const li = Array.from({ length: 10 }, (_, i) => ({ description: `I${i}`, product_id: i % 2 ? 'beans' : 'delivery', type: i < 8 ? 'payin' : 'payout', user: { external_id: `user-${i % 4}` }, currency_code: 'USD', price: { unit_price: String(100 + i), quantity: 1 } }));
for (let i = 0; i < 50; i++) await post('/billing/invoices', { invoice_id: `seed-${i}`, line_items: li });
let seq = 0;
import { sampleBackends } from './bench/support/databaseCounters.js';
const sampler = connect(url, { max: 1 });
await sampler`create extension if not exists pg_stat_statements`;
const stop = sampleBackends(sampler);
const fig = await runLoad({ baseUrl: tally.baseUrl, headers: h, clients: 32, seconds: 6, serverPid: tally.child.pid!, okStatus: 201, next: () => ({ method: 'POST', path: '/billing/transactions', body: JSON.stringify({ account: { external_id: `bank-${++seq % 4}` }, amount: '300', currency: 'USD', external_id: `tx-${seq}`, posted: '2026-11-05T10:00:00Z', allocations: [{ amount: '100', invoice_id: `seed-${seq % 50}`, type: 'invoice_payin', user: { external_id: 'user-0' } }, { amount: '150', invoice_id: `seed-${(seq + 7) % 50}`, type: 'invoice_payin', user: { external_id: 'user-1' } }] }) }) });
console.log(fig);
console.log('waits', await stop());
console.log(await sampler`select query, calls, round(mean_exec_time::numeric,3) as ms from pg_stat_statements order by total_exec_time desc limit 15`.catch(e => e.message));
await sampler`select pg_stat_statements_reset()`;
console.log('one sync', await post('/billing/transactions', { account: { external_id: 'bank-1' }, amount: '300', currency: 'USD', external_id: 'tx-one', posted: '2026-11-05T10:00:00Z', allocations: [{ amount: '100', invoice_id: 'seed-3', type: 'invoice_payin', user: { external_id: 'user-0' } }] }));
console.log((await sampler`select calls, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 150) as q from pg_stat_statements where query not like '%pg_stat%' order by calls desc`).map(r => r.calls + ' ' + r.q).join('\n'));
const sql = connect(url, { max: 1 });
const [{ id: ws }] = await sql`select id from workspaces limit 1`;
await sql`set plan_cache_mode = force_generic_plan`;
for (const q of [
  sql`explain (analyze, buffers) select id from invoices where workspace_id = ${ws} and id = any(${['seed-1', 'seed-8']}::text[])`,
  sql`explain (analyze, buffers) select t.id from billing_transactions t join external_accounts a on a.workspace_id = t.workspace_id and a.id = t.account_id where t.workspace_id = ${ws} and t.external_id = ${'tx-77'}`,
]) console.log((await q).map((r) => Object.values(r)[0]).join('\n'), '\n');
console.log(await sql`select relname, n_live_tup, n_dead_tup, n_tup_hot_upd, n_tup_upd from pg_stat_user_tables where relname in ('invoices','external_accounts','billing_transactions','billing_users','allocations')`);
await sql.end(); await stopTally(tally); await pg.stop(); process.exit(0);
