import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerInvariants } from '../../src/db/ledgerChecks.js';
import { GROUP_COMMIT } from '../../src/ledger/entries/postingGroupOptions.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Group commit: concurrent addLedgerEntry calls are posted together, one statement and one commit
// per group, yet each request must get the answer it would get alone: its own refused condition,
// its own replay, its own reused key, its own out-of-range balance.

const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) {
  addLedgerEntry(ik: $ik, entry: $entry) {
    __typename
    ... on AddLedgerEntryResult { isIkReplay entry { id } lines { amount account { path } } }
    ... on BadRequestError { code message }
    ... on InternalError { code }
  }
}`;
const POST_BATCH = `mutation($entries: [AddLedgerEntryInput!]!) {
  addLedgerEntries(entries: $entries) {
    __typename
    ... on AddLedgerEntriesResult { results { isIkReplay entry { id } } }
    ... on AddLedgerEntriesError { errors { ik code } }
  }
}`;
const BALANCE = `query($path: String!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: "grouped" } }) { ownBalance } }`;
const INT96_MAX = ((1n << 120n) - 1n).toString();

let server: TestServer;
let alice: TestWorkspace;

beforeAll(async () => {
  server = await startTestServer({ postingGroups: GROUP_COMMIT });
  alice = await server.workspace('Groups');
  await gql(
    server.baseUrl,
    alice.token,
    'mutation { createLedger(ik: "grouped", ledger: { name: "G" }) { __typename } }',
  );
  const strong = '{ ownBalanceUpdates: strong }';
  const created = await gql(
    server.baseUrl,
    alice.token,
    `mutation { createLedgerAccounts(ledger: { ik: "grouped" }, ledgerAccounts: [
      { ik: "bank", name: "Bank", type: asset },
      { ik: "wallet", name: "Wallet", type: liability, consistencyConfig: ${strong} },
      { ik: "shop", name: "Shop", type: liability, consistencyConfig: ${strong} },
      { ik: "payees", name: "Payees", type: liability, childLedgerAccounts: [
        ${Array.from({ length: 8 }, (_, i) => `{ ik: "p${i}", name: "P${i}" }`).join(', ')}
      ] },
      { ik: "huge", name: "Huge", type: asset, consistencyConfig: ${strong} },
      { ik: "untouched", name: "Untouched", type: liability, consistencyConfig: ${strong} },
      { ik: "huge-source", name: "Huge source", type: liability }
    ]) { __typename } }`,
  );
  expect(created.body.data.createLedgerAccounts.__typename).toBe('CreateLedgerAccountsResult');
});
afterAll(() => server?.close());

const post = async (ik: string, entry: Record<string, unknown>) =>
  (await gql(server.baseUrl, alice.token, POST, { ik, entry: { ledger: { ik: 'grouped' }, ...entry } })).body.data
    .addLedgerEntry;
const postBatch = async (entries: { ik: string; entry: Record<string, unknown> }[]) =>
  (
    await gql(server.baseUrl, alice.token, POST_BATCH, {
      entries: entries.map(({ ik, entry }) => ({ ik, entry: { ledger: { ik: 'grouped' }, ...entry } })),
    })
  ).body.data.addLedgerEntries;
const balance = async (path: string) =>
  (await gql(server.baseUrl, alice.token, BALANCE, { path })).body.data.ledgerAccount.ownBalance as string;
/** Between two accounts of one type: `from` goes down, `to` up. */
const transfer = (from: string, to: string, amount: string) => ({
  lines: [
    { account: { path: from }, amount: `-${amount}` },
    { account: { path: to }, amount },
  ],
});
/** A liability funded by an asset: both go up. */
const fund = (liability: string, asset: string, amount: string) => ({
  lines: [
    { account: { path: asset }, amount },
    { account: { path: liability }, amount },
  ],
});
const counter = async (name: string) => {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
};

describe('group commit', () => {
  it('posts concurrent entries in fewer commits than entries, each answered as if alone', async () => {
    const groupsBefore = await counter('tally_ledger_posting_groups_total');
    const entriesBefore = await counter('tally_ledger_grouped_entries_total');
    const retriedBefore = await counter('tally_ledger_posting_groups_retried_total');
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => post(`spread-${i}`, fund(`payees/p${i % 8}`, 'bank', '5'))),
    );
    expect(results.map((result) => [result.__typename, result.isIkReplay])).toEqual(
      Array(64).fill(['AddLedgerEntryResult', false]),
    );
    expect(new Set(results.map((result) => result.entry.id)).size).toBe(64);
    const groups = (await counter('tally_ledger_posting_groups_total')) - groupsBefore;
    expect((await counter('tally_ledger_grouped_entries_total')) - entriesBefore).toBe(64);
    expect(groups).toBeLessThan(64);
    expect((await counter('tally_ledger_posting_groups_retried_total')) - retriedBefore).toBe(0);
    for (let i = 0; i < 8; i++) expect(await balance(`payees/p${i}`)).toBe('40');
    expect(await balance('bank')).toBe('320');
  });

  it('evaluates a strong account’s condition entry by entry: exactly the postings that fit are written', async () => {
    expect((await post('fill-wallet', fund('wallet', 'bank', '10'))).__typename).toBe('AddLedgerEntryResult');
    // Ten spends of 3 from a balance of 10 that must stay at or above 0: three fit, whatever the order.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(`spend-${i}`, {
          ...transfer('wallet', 'shop', '3'),
          conditions: [{ account: { path: 'wallet' }, postcondition: { ownBalance: { gte: '0' } } }],
        }),
      ),
    );
    const outcomes = results.map((result) => result.code ?? result.__typename);
    expect(outcomes.filter((outcome) => outcome === 'AddLedgerEntryResult')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'entry_condition_failed')).toHaveLength(7);
    expect([await balance('wallet'), await balance('shop')]).toEqual(['1', '9']);
  });

  it('answers identical requests with one entry and replays, and a reused key with its refusal', async () => {
    const same = transfer('payees/p0', 'payees/p1', '7');
    const other = transfer('payees/p0', 'payees/p1', '8');
    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => post('twin', same)),
      ...Array.from({ length: 6 }, () => post('twin', other)),
    ]);
    const written = results.filter((result) => result.__typename === 'AddLedgerEntryResult');
    expect(new Set(written.map((result) => result.entry.id)).size).toBe(1);
    expect(written.filter((result) => !result.isIkReplay)).toHaveLength(1);
    // Every request with the winning body is answered the entry; every other one, the reused key.
    const winner = written[0].lines[1].amount as string;
    const withWinningBody = winner === '7' ? results.slice(0, 6) : results.slice(6);
    const withOtherBody = winner === '7' ? results.slice(6) : results.slice(0, 6);
    expect(withWinningBody.map((result) => result.__typename)).toEqual(Array(6).fill('AddLedgerEntryResult'));
    expect(withOtherBody.map((result) => result.code)).toEqual(Array(6).fill('idempotency_key_reused'));
  });

  it('refuses only the entry that would push a balance out of range; the others of its group are written', async () => {
    expect((await post('huge-1', fund('huge-source', 'huge', INT96_MAX))).__typename).toBe('AddLedgerEntryResult');
    const results = await Promise.all([
      post('huge-2', fund('huge-source', 'huge', '1')),
      ...Array.from({ length: 7 }, (_, i) => post(`beside-huge-${i}`, transfer('payees/p2', 'payees/p3', '1'))),
    ]);
    expect(results[0]).toMatchObject({ __typename: 'BadRequestError', code: 'invalid_input_provided' });
    expect(results.slice(1).map((result) => result.__typename)).toEqual(Array(7).fill('AddLedgerEntryResult'));
    expect(await balance('huge')).toBe(INT96_MAX);
  });

  it('leaves no trace of a refused entry, not even the balance rows it locked', async () => {
    const refused = await post('never', {
      ...transfer('payees/p4', 'untouched', '5'),
      conditions: [{ account: { path: 'untouched' }, postcondition: { ownBalance: { gte: '1000' } } }],
    });
    expect(refused).toMatchObject({ __typename: 'BadRequestError', code: 'entry_condition_failed' });
    const rows = await server.db.sql<{ path: string }[]>`
      select a.path from ledger_account_balances b join ledger_accounts a on a.workspace_id = b.workspace_id and a.id = b.account_id
      where b.workspace_id = ${alice.workspaceId} and a.path = 'untouched'`;
    expect(rows).toEqual([]);
    const [entries] = await server.db.sql<{ n: number }[]>`
      select count(*)::int as n from ledger_entries where workspace_id = ${alice.workspaceId} and ik = 'never'`;
    expect(entries.n).toBe(0);
  });

  it('posts every entry prepared before an account changed, each once, from fresh targets', async () => {
    // The server holds p2 and bank once it has posted to them; renaming p1 renews the ledger's revision.
    expect((await post('warm-targets', fund('payees/p2', 'bank', '1'))).__typename).toBe('AddLedgerEntryResult');
    const renamed = await gql(
      server.baseUrl,
      alice.token,
      'mutation { updateLedgerAccount(ledgerAccount: { path: "payees/p1", ledger: { ik: "grouped" } }, update: { name: "P one" }) { __typename } }',
    );
    expect(renamed.body.data.updateLedgerAccount.__typename).toBe('UpdateLedgerAccountResult');
    const staleBefore = await counter('tally_ledger_stale_postings_total');
    const before = await balance('payees/p2');
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => post(`after-rename-${i}`, fund('payees/p2', 'bank', '1'))),
    );
    expect(results.map((result) => [result.__typename, result.isIkReplay])).toEqual(
      Array(16).fill(['AddLedgerEntryResult', false]),
    );
    // At least the first was prepared from the held, stale revision, refused, and run again: each posted once.
    expect(await counter('tally_ledger_stale_postings_total')).toBeGreaterThan(staleBefore);
    expect(BigInt(await balance('payees/p2')) - BigInt(before)).toBe(16n);
  });

  it('answers a refusal decided from held targets once fresh ones confirm it', async () => {
    expect((await post('held-again', fund('payees/p3', 'bank', '1'))).__typename).toBe('AddLedgerEntryResult');
    const staleBefore = await counter('tally_ledger_stale_postings_total');
    const wrongCurrency = {
      lines: [
        { account: { path: 'bank' }, amount: '1', currency: { code: 'EUR' } },
        { account: { path: 'payees/p3' }, amount: '1', currency: { code: 'EUR' } },
      ],
    };
    expect(await post('wrong-currency', wrongCurrency)).toMatchObject({
      __typename: 'BadRequestError',
      code: 'invalid_input_provided',
    });
    // Decided from held accounts first, then confirmed from a fresh lookup: one round again, not three.
    expect((await counter('tally_ledger_stale_postings_total')) - staleBefore).toBe(1);
  });

  it('posts concurrent batches in fewer commits than batches, each all or nothing as if alone', async () => {
    const groupsBefore = await counter('tally_ledger_posting_groups_total');
    const entriesBefore = await counter('tally_ledger_grouped_entries_total');
    const before = await Promise.all([0, 1, 2, 3].map((i) => balance(`payees/p${i}`)));
    const batches = Array.from({ length: 12 }, (_, b) =>
      Array.from({ length: 4 }, (_, i) => ({ ik: `batch-${b}-${i}`, entry: fund(`payees/p${i}`, 'bank', '2') })),
    );
    const results = await Promise.all(batches.map(postBatch));
    expect(results.map((result) => result.__typename)).toEqual(Array(12).fill('AddLedgerEntriesResult'));
    const ids = results.flatMap((result) => result.results.map((entry: { entry: { id: string } }) => entry.entry.id));
    expect(new Set(ids).size).toBe(48);
    expect((await counter('tally_ledger_grouped_entries_total')) - entriesBefore).toBe(48);
    expect((await counter('tally_ledger_posting_groups_total')) - groupsBefore).toBeLessThan(12);
    const after = await Promise.all([0, 1, 2, 3].map((i) => balance(`payees/p${i}`)));
    expect(after.map((value, i) => BigInt(value) - BigInt(before[i]))).toEqual([24n, 24n, 24n, 24n]);
  });

  it('refuses only the batch a condition refuses; the batches grouped with it are written', async () => {
    expect((await post('fill-wallet-for-batches', fund('wallet', 'bank', '5'))).__typename).toBe(
      'AddLedgerEntryResult',
    );
    const walletBefore = await balance('wallet');
    const spend = (ik: string, amount: string) => ({
      ik,
      entry: {
        ...transfer('wallet', 'shop', amount),
        conditions: [{ account: { path: 'wallet' }, postcondition: { ownBalance: { gte: '0' } } }],
      },
    });
    const funding = (b: number) =>
      Array.from({ length: 3 }, (_, i) => ({
        ik: `beside-refused-${b}-${i}`,
        entry: fund(`payees/p${i}`, 'bank', '1'),
      }));
    const results = await Promise.all([
      postBatch(funding(0)),
      // Its second entry would take the wallet below 0: nothing of it is written.
      postBatch([spend('spend-ok-in-refused', '1'), spend('spend-too-much', '1000')]),
      postBatch(funding(1)),
      postBatch(funding(2)),
    ]);
    expect(results[1]).toEqual({
      __typename: 'AddLedgerEntriesError',
      errors: [{ ik: 'spend-too-much', code: 'entry_condition_failed' }],
    });
    for (const index of [0, 2, 3]) {
      expect(results[index].results.map((entry: { isIkReplay: boolean }) => entry.isIkReplay)).toEqual([
        false,
        false,
        false,
      ]);
    }
    expect(await balance('wallet')).toBe(walletBefore);
    const [written] = await server.db.sql<{ n: number }[]>`
      select count(*)::int as n from ledger_entries where workspace_id = ${alice.workspaceId} and ik like 'spend-%-in-refused'`;
    expect(written.n).toBe(0);
  });

  it('answers a batch sent twice at once with one write and one replay, and a reused key with its refusal', async () => {
    const batch = [0, 1, 2].map((i) => ({ ik: `twin-batch-${i}`, entry: fund(`payees/p${i}`, 'bank', '3') }));
    const clash = [{ ik: 'twin-batch-1', entry: fund('payees/p1', 'bank', '4') }];
    const [first, second, reused] = await Promise.all([postBatch(batch), postBatch(batch), postBatch(clash)]);
    const replays = [first, second].map((result) =>
      result.results.map((entry: { isIkReplay: boolean }) => entry.isIkReplay),
    );
    expect(replays).toContainEqual([false, false, false]);
    expect(replays).toContainEqual([true, true, true]);
    expect(first.results.map((entry: { entry: { id: string } }) => entry.entry.id)).toEqual(
      second.results.map((entry: { entry: { id: string } }) => entry.entry.id),
    );
    expect(reused).toEqual({
      __typename: 'AddLedgerEntriesError',
      errors: [{ ik: 'twin-batch-1', code: 'idempotency_key_reused' }],
    });
  });

  it('leaves the ledger consistent', async () => {
    await server.db.sql`select fold_ledger_balance_queue(100000)`;
    expect(await checkLedgerInvariants(server.db.sql)).toEqual([]);
  });
});
