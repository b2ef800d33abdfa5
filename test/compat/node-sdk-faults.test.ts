import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxAdmin, type SandboxWorkspace } from '../support/sandbox.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../support/server.js';

// The official Node SDK's retry handling against faults the sandbox injects: what a team tests
// before trusting its client in production. The SDK retries a mutation answered with a retryable
// error or not answered at all, with the same ik; it gives up at once on a non-retryable one.

const require = createRequire(import.meta.url);
const { createFragmentClient, BadRequestError } =
  require('@fragment-dev/node-client') as typeof import('@fragment-dev/node-client');
const { LedgerAccountTypes } =
  require('@fragment-dev/node-client/types') as typeof import('@fragment-dev/node-client/types');

let server: TestServer;
let admin: ReturnType<typeof sandboxAdmin>;
let workspace: SandboxWorkspace;

beforeAll(async () => {
  server = await startTestServer({ sandbox: { adminToken: ADMIN_TOKEN } });
  admin = sandboxAdmin(server.baseUrl);
  workspace = await admin.workspace('SDK faults');
  const client = sdk();
  await client.storeSchema({
    schema: {
      key: 'sdk-faults',
      chartOfAccounts: {
        accounts: [
          { key: 'bank', type: LedgerAccountTypes.Asset },
          { key: 'owed', type: LedgerAccountTypes.Liability },
        ],
      },
      ledgerEntries: {
        types: [
          {
            type: 'deposit',
            lines: [
              { key: 'bank', account: { path: 'bank' }, amount: '{{amount}}' },
              { key: 'owed', account: { path: 'owed' }, amount: '{{amount}}' },
            ],
          },
        ],
      },
    },
  });
  await client.createLedger({ ik: 'books', ledger: { name: 'Books' }, schemaKey: 'sdk-faults' });
});
afterAll(() => server?.close());

const sdk = () =>
  createFragmentClient({
    params: {
      clientId: workspace.clientId,
      clientSecret: workspace.clientSecret,
      apiUrl: `${server.baseUrl}/graphql`,
      authUrl: `${server.baseUrl}/oauth2/token`,
      scope: `${server.baseUrl}/*`,
    },
    retryConfig: { retries: 3, factor: 1, minTimeout: 10, maxTimeout: 10 },
  });

const post = (ik: string) =>
  sdk().addLedgerEntry({ ik, ledgerIk: 'books', type: 'deposit', parameters: { amount: '1' } });

const fault = async (rule: unknown) =>
  expect((await admin.call('POST', `/workspaces/${workspace.workspaceId}/faults`, rule)).status).toBe(201);

/** Entries holding the ik, counted in the database: what the retries left behind. */
const entriesWithIk = async (ik: string) =>
  (
    await server.db.sql<{ count: number }[]>`
      select count(*)::int as count from ledger_entries where workspace_id = ${workspace.workspaceId} and ik = ${ik}`
  )[0].count;

const matchedSoFar = async () =>
  (await admin.call('GET', `/workspaces/${workspace.workspaceId}/faults`)).body.data.map((rule: any) => rule.matched);

describe('@fragment-dev/node-client against injected faults', () => {
  it('resends after a retryable InternalError and succeeds, posting one entry', async () => {
    await fault({ operation: 'addLedgerEntry', fault: { type: 'error', code: 'internal_error' }, count: 2 });
    const answer = await post('after-internal-error');
    expect(answer.addLedgerEntry).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: false });
    expect(await matchedSoFar()).toEqual([]); // both injected answers were taken, so the rule is spent
    expect(await entriesWithIk('after-internal-error')).toBe(1);
  });

  it('resends after an HTTP 503 and succeeds', async () => {
    await fault({ operation: 'addLedgerEntry', fault: { type: 'error', code: 'service_unavailable' }, count: 1 });
    const answer = await post('after-503');
    expect(answer.addLedgerEntry.__typename).toBe('AddLedgerEntryResult');
    expect(await entriesWithIk('after-503')).toBe(1);
  });

  it('surfaces a non-retryable BadRequestError at once, with its code, posting nothing', async () => {
    await fault({ operation: 'addLedgerEntry', fault: { type: 'error', code: 'entry_condition_failed' }, count: 2 });
    const failure = await post('bad-request').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(BadRequestError);
    expect((failure as { code: string }).code).toBe('entry_condition_failed');
    expect(await matchedSoFar()).toEqual([1]); // one attempt only: the SDK did not resend
    expect(await entriesWithIk('bad-request')).toBe(0);
    await admin.call('DELETE', `/workspaces/${workspace.workspaceId}/faults`);
  });

  it('resends an entry whose answer was lost after the commit, and the ik makes it one entry', async () => {
    await fault({ operation: 'addLedgerEntry', fault: { type: 'drop', when: 'after_commit' }, count: 1 });
    const answer = await post('lost-answer');
    expect(answer.addLedgerEntry).toMatchObject({ __typename: 'AddLedgerEntryResult', isIkReplay: true });
    expect(await entriesWithIk('lost-answer')).toBe(1);
  });
});
