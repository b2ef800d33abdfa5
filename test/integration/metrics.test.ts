import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// What Prometheus scrapes at /metrics: requests by operation and status, GraphQL operations by
// name, the database pool, and every entry-writing path's postings, counted and timed.

let server: TestServer;
let workspace: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer();
  workspace = await server.workspace('Metrics');
});
afterAll(() => server?.close());

describe('/metrics', () => {
  it('counts requests by operation and status, GraphQL operations by name, and postings', async () => {
    await fetch(`${server.baseUrl}/billing/products`, { headers: { authorization: `Bearer ${workspace.token}` } });
    await fetch(`${server.baseUrl}/billing/nowhere/${'x'.repeat(20)}`, {
      headers: { authorization: `Bearer ${workspace.token}` },
    });
    await gql(server.baseUrl, workspace.token, 'query whoAmI { workspace { id } }');
    await gql(
      server.baseUrl,
      workspace.token,
      'mutation { createLedger(ik: "m", ledger: { name: "M" }) { __typename } }',
    );
    await gql(
      server.baseUrl,
      workspace.token,
      `mutation { createLedgerAccounts(ledger: { ik: "m" }, ledgerAccounts: [
      { ik: "a", name: "A", type: asset }, { ik: "b", name: "B", type: liability }]) { __typename } }`,
    );
    const posted = await gql(
      server.baseUrl,
      workspace.token,
      `mutation post { addLedgerEntry(ik: "e1", entry: { ledger: { ik: "m" },
      lines: [{ account: { path: "a" }, amount: "5" }, { account: { path: "b" }, amount: "5" }] }) { __typename } }`,
    );
    expect(posted.body.data.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');

    // Concurrent reads make the pool open more than the one connection the scrape will use.
    await Promise.all(Array.from({ length: 4 }, () => gql(server.baseUrl, workspace.token, '{ workspace { id } }')));
    const response = await fetch(`${server.baseUrl}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/tally_http_requests_total\{operation="listProducts",method="GET",status="200"\} [1-9]/);
    expect(text).toMatch(/tally_http_requests_total\{operation="unknown_route",method="GET",status="404"\} [1-9]/);
    expect(text).not.toContain('xxxxxxxx');
    expect(text).toMatch(/tally_graphql_operations_total\{operation_name="whoAmI",operation_type="query"\} 1/);
    expect(text).toMatch(/tally_graphql_operations_total\{operation_name="post",operation_type="mutation"\} 1/);
    expect(text).toMatch(/tally_ledger_entries_posted_total [1-9]/);
    expect(text).toMatch(/tally_ledger_posting_duration_seconds_count [1-9]/);
    expect(text).toMatch(/tally_http_request_duration_seconds_bucket\{le="0.1",operation="listProducts"\} [1-9]/);
    expect(text).toContain('tally_process_resident_memory_bytes');
    expect(text).toMatch(/tally_db_connections\{state="max"\} 10/);
    // Besides the scrape's own connection, the pool holds the ones the requests above opened;
    // each may be idle or busy with another gauge's query at scrape time, so count every state.
    const pooled = [...text.matchAll(/^tally_db_connections\{state="(?!max")[^"]+"\} (\d+)$/gm)];
    expect(pooled.reduce((sum, [, count]) => sum + Number(count), 0)).toBeGreaterThanOrEqual(1);
  });
});

describe('/metrics of postings', () => {
  const read = async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 'NaN');
    return {
      written: value('tally_ledger_entries_posted_total'),
      timed: value('tally_ledger_posting_duration_seconds_count'),
    };
  };
  const post = (ik: string, amount: string, extra = '') =>
    gql(
      server.baseUrl,
      workspace.token,
      `mutation { addLedgerEntry(ik: "${ik}",
    entry: { ledger: { ik: "pm" },
      lines: [{ account: { path: "a" }, amount: "${amount}" }, { account: { path: "b" }, amount: "${amount}" }]${extra} }) {
    __typename ... on AddLedgerEntryResult { entry { id } } ... on Error { code } } }`,
    );

  it('count the entries written by reversals and migrations, and time refused postings too', async () => {
    await gql(
      server.baseUrl,
      workspace.token,
      'mutation { createLedger(ik: "pm", ledger: { name: "PM" }) { __typename } }',
    );
    await gql(
      server.baseUrl,
      workspace.token,
      `mutation { createLedgerAccounts(ledger: { ik: "pm" }, ledgerAccounts: [
      { ik: "a", name: "A", type: asset }, { ik: "b", name: "B", type: liability }]) { __typename } }`,
    );
    const first = (await post('pm-1', '5')).body.data.addLedgerEntry.entry.id;
    const second = (await post('pm-2', '7')).body.data.addLedgerEntry.entry.id;

    let before = await read();
    const reversed = await gql(
      server.baseUrl,
      workspace.token,
      `mutation { reverseLedgerEntry(id: "${first}") { __typename } }`,
    );
    expect(reversed.body.data.reverseLedgerEntry.__typename).toBe('ReverseLedgerEntryResult');
    expect(await read()).toEqual({ written: before.written + 1, timed: before.timed + 1 });

    before = await read();
    const migrated = await gql(
      server.baseUrl,
      workspace.token,
      `mutation($id: ID!) { migrateLedgerEntry(input: { id: $id, newLedgerEntry: {
      lines: [{ account: { path: "a" }, amount: "8" }, { account: { path: "b" }, amount: "8" }] } }) { __typename } }`,
      { id: second },
    );
    expect(migrated.body.data.migrateLedgerEntry.__typename).toBe('MigrateLedgerEntryResult');
    expect(await read()).toEqual({ written: before.written + 2, timed: before.timed + 1 });

    before = await read();
    const refused = await post(
      'pm-3',
      '1',
      ', conditions: [{ account: { path: "a" }, precondition: { ownBalance: { gte: "1000000" } } }]',
    );
    expect(refused.body.data.addLedgerEntry.code).toBe('entry_condition_failed');
    expect(await read()).toEqual({ written: before.written, timed: before.timed + 1 });
  });
});
