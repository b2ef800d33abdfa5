import { buildSchema, Kind, OperationTypeNode, parse, type OperationDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/billing/api.js';
import { OpenAPI31Backend } from '../../src/http/openapi31Backend.js';
import { gql } from '../support/graphql.js';
import { startTestServer, type TestServer, type TestWorkspace } from '../support/server.js';

// Every endpoint across workspaces. Workspace A holds one of every kind of object, ledger and
// billing. Workspace B's client then calls every GraphQL root field and every REST operation
// of the contract with A's ids, iks, codes and external ids, and must get what it would get if
// A's objects did not exist: not found, an empty list, or (creates by key) a fresh object of
// its own. Each such call is made twice, once with A's identifiers and once with identifiers
// that never existed anywhere (a "ghost" of A), and both answers must be the same: A's objects
// must be indistinguishable from nothing, error messages included. No answer to B may carry
// the marker every name and description of A carries, nor any id generated for A that B did
// not send itself. Without a token, or with a bad one, everything answers 401. At the end A's
// objects are read again, as A, and must be exactly as they were.

/** Every name, description and tag value of workspace A carries this (compared in any case). */
const MARKER = 'qz7secret';
const ID_ANYWHERE = /[a-z]+(?:_[a-z]+)*_[0-9a-hjkmnp-tv-z]{26}(?![0-9a-z])/g;
const ISO_ANYWHERE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const VOLATILE = new Set(['clientSecret', 'endCursor', 'startCursor', 'next_cursor', 'access_token', 'request_id']);

let server: TestServer;
let wa: TestWorkspace;
let wb: TestWorkspace;

/** A's identifiers by name: generated ids (`led_...`) and caller-chosen keys (iks, codes, external ids). */
type World = Record<string, string>;
const A: World = {};
/** The same names bound to values that never existed in any workspace. */
const GHOST: World = {};
/** B's own objects, for requests that mix B's objects with A's identifiers. */
const B: Record<string, string> = {};
/** Every generated id (and credential) of A seen in A's answers: none may reach B unless B sent it. */
const aSecrets = new Set<string>();

function harvest(value: unknown) {
  const text = JSON.stringify(value) ?? '';
  for (const id of text.match(ID_ANYWHERE) ?? []) aSecrets.add(id);
}

// ---------------------------------------------------------------- transport

type Answer = { status: number; body: any; text: string };

async function send(request: HttpRequest, auth: string | undefined): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (auth !== undefined) headers.authorization = auth;
  let body: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  } else if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  const response = await fetch(`${server.baseUrl}${request.prefix ?? '/billing'}${request.path}`, {
    method: request.method,
    headers,
    body,
  });
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: kept as text */
  }
  return { status: response.status, body: json, text };
}

const bearer = (token: string) => `Bearer ${token}`;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function asA(query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await gql(server.baseUrl, wa.token, query, variables);
  harvest(body);
  expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  for (const value of Object.values(
    body.data as Record<string, { __typename?: string; code?: string; message?: string }>,
  )) {
    if (value && typeof value === 'object' && 'code' in value)
      throw new Error(`A's seeding failed: ${JSON.stringify(body.data)}`);
  }
  return body.data;
}

async function restA(method: string, path: string, body?: unknown) {
  const answer = await send({ method, path, body }, bearer(wa.token));
  harvest(answer.body);
  if (answer.status >= 300)
    throw new Error(`A's seeding failed: ${method} ${path} answered ${answer.status} ${answer.text}`);
  return answer.body.data;
}

async function asB(query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await gql(server.baseUrl, wb.token, query, variables);
  expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  return body.data;
}

// ---------------------------------------------------------------- checks on every answer B gets

/** Nothing of A in an answer to B: no marker, no id of A that B did not send itself. */
function expectNothingOfA(answer: Answer, sent: string) {
  expect(answer.status, answer.text).toBeLessThan(500);
  expect(answer.text.toLowerCase()).not.toContain(MARKER);
  const leaked = (answer.text.match(ID_ANYWHERE) ?? []).filter((id) => aSecrets.has(id) && !sent.includes(id));
  expect(leaked, answer.text).toEqual([]);
  for (const secret of [wa.workspaceId, wa.clientId, wa.clientSecret]) expect(answer.text).not.toContain(secret);
  expect(answer.text).not.toContain('InternalError');
  expect(answer.text).not.toContain('internal_error');
}

/** An answer as comparable across runs: ghost values read as A's, B's fresh ids and times as placeholders. */
function comparable(answer: Answer, ghostToReal?: Map<string, string>): unknown {
  let text = answer.text;
  if (ghostToReal) for (const [ghost, real] of ghostToReal) text = text.split(ghost).join(real);
  const scrub = (value: unknown, key?: string): unknown => {
    if (key && VOLATILE.has(key)) return `<${key}>`;
    if (typeof value === 'string') {
      return value.replace(ID_ANYWHERE, (id) => (aSecrets.has(id) ? id : '<id>')).replace(ISO_ANYWHERE, '<time>');
    }
    if (Array.isArray(value)) return value.map((item) => scrub(item));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, k)]));
    return value;
  };
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: answer.status, body: scrub(json) };
}

const ghostToReal = () => new Map(Object.keys(GHOST).map((name) => [GHOST[name], A[name]]));

// ---------------------------------------------------------------- GraphQL cases

type GqlCase = {
  name: string;
  query: string;
  /** Variables from a world: A's identifiers or their ghosts. */
  variables?: (w: World) => Record<string, unknown>;
  check: (body: any) => void;
};

const FRAGMENTS: Record<string, string> = {
  LedgerF: 'fragment LedgerF on Ledger { __typename id ik name workspaceId balanceUTCOffset schema { key name } }',
  AccountF:
    'fragment AccountF on LedgerAccount { __typename id ik path name type ledgerId currency { code customCurrencyId name } linkedAccount { id externalId name } parentLedgerAccount { id path name } }',
  EntryF:
    'fragment EntryF on LedgerEntry { __typename id ik description ledgerId posted tags { key value } groups { key value } lines { nodes { id amount account { id path name } txId tx { id externalId description } } } }',
  ErrorF: 'fragment ErrorF on Error { __typename code message retryable }',
  TxF: 'fragment TxF on Tx { __typename id externalId description amount accountId linkId externalAccountId isDeleted ledgerEntryIds }',
  ExternalAccountF:
    'fragment ExternalAccountF on ExternalAccount { __typename id externalId name linkId link { id name } }',
  CurrencyF: 'fragment CurrencyF on Currency { code customCurrencyId customCode name precision }',
};

/** The document with the fragments it uses (transitively). */
function withFragments(query: string): string {
  const used = new Set<string>();
  const visit = (text: string) => {
    for (const [, name] of text.matchAll(/\.\.\.(\w+)/g)) {
      if (FRAGMENTS[name] && !used.has(name)) {
        used.add(name);
        visit(FRAGMENTS[name]);
      }
    }
  };
  visit(query);
  return [query, ...[...used].map((name) => FRAGMENTS[name])].join('\n');
}

const isNull = (field: string) => (body: any) => {
  expect(body.errors).toBeUndefined();
  expect(body.data[field]).toBeNull();
};
const refused = (field: string, code: string) => (body: any) => {
  expect(body.errors).toBeUndefined();
  expect(body.data[field]).toMatchObject({ __typename: 'BadRequestError', code });
};
const failsWith = (code: string) => (body: any) => {
  expect(body.data ?? null).toBeNull();
  expect(body.errors?.map((error: any) => error.extensions?.code)).toEqual([code]);
};

const RESULT = (type: string, selection: string) => `__typename ...ErrorF ... on ${type} { ${selection} }`;
const lines = (from: unknown, to: unknown, amount = '5') => [
  { account: from, amount },
  { account: to, amount },
];

const GRAPHQL_CASES: GqlCase[] = [
  // ---- queries, while B holds nothing under A's keys
  { name: '_empty', query: '{ _empty }', check: isNull('_empty') },
  {
    name: "workspace is the caller's",
    query: '{ workspace { id name } }',
    check: (body) => expect(body.data.workspace).toEqual({ id: wb.workspaceId, name: 'Workspace B' }),
  },
  {
    name: "ledger by A's id",
    query: 'query($id: ID!) { ledger(ledger: { id: $id }) { ...LedgerF } }',
    variables: (w) => ({ id: w.plainLedger }),
    check: isNull('ledger'),
  },
  {
    name: "ledger by A's ik",
    query: 'query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { ...LedgerF } }',
    variables: (w) => ({ ik: w.plainLedgerIk }),
    check: isNull('ledger'),
  },
  {
    name: "ledger on a schema by A's id",
    query: 'query($id: ID!) { ledger(ledger: { id: $id }) { ...LedgerF } }',
    variables: (w) => ({ id: w.booksLedger }),
    check: isNull('ledger'),
  },
  {
    name: "B's ledger, lines of A's account",
    query: `query($account: ID!) { ledger(ledger: { ik: "b-books" }) {
      lines(filter: { ledgerAccount: { equalTo: { id: $account } } }) { nodes { id amount } } } }`,
    variables: (w) => ({ account: w.extraAccount }),
    check: (body) => expect(body.data?.ledger?.lines.nodes ?? []).toEqual([]),
  },
  {
    name: "ledgers lists only B's",
    query: '{ ledgers(first: 200) { nodes { ...LedgerF } } }',
    check: (body) => expect(body.data.ledgers.nodes.map((node: any) => node.ik)).toEqual(['b-books']),
  },
  {
    name: "ledgers on a schema: none of B's",
    query: '{ ledgers(filter: { hasSchema: true }) { nodes { ...LedgerF } } }',
    check: (body) => expect(body.data.ledgers.nodes).toEqual([]),
  },
  {
    name: "ledgers after A's cursor",
    query: 'query($after: String) { ledgers(after: $after) { nodes { ...LedgerF } } }',
    variables: (w) => ({ after: w.ledgersCursor }),
    check: failsWith('invalid_input_provided'),
  },
  {
    name: "ledgerAccount by A's id",
    query: 'query($id: ID!) { ledgerAccount(ledgerAccount: { id: $id }) { ...AccountF } }',
    variables: (w) => ({ id: w.bankAccount }),
    check: isNull('ledgerAccount'),
  },
  {
    name: "ledgerAccount by path in A's ledger (ik)",
    query:
      'query($path: String!, $ik: SafeString!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: $ik } }) { ...AccountF } }',
    variables: (w) => ({ path: w.bankAccountIk, ik: w.plainLedgerIk }),
    check: isNull('ledgerAccount'),
  },
  {
    name: "ledgerAccount by path in A's ledger (id)",
    query:
      'query($path: String!, $id: ID!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { id: $id } }) { ...AccountF } }',
    variables: (w) => ({ path: w.templatePath, id: w.booksLedger }),
    check: isNull('ledgerAccount'),
  },
  {
    name: "ledgerAccount: A's account id with B's ledger",
    query: 'query($id: ID!) { ledgerAccount(ledgerAccount: { id: $id, ledger: { ik: "b-books" } }) { ...AccountF } }',
    variables: (w) => ({ id: w.vaultAccount }),
    check: isNull('ledgerAccount'),
  },
  {
    name: "ledgerEntry by A's id",
    query: 'query($id: ID!) { ledgerEntry(ledgerEntry: { id: $id }) { ...EntryF } }',
    variables: (w) => ({ id: w.entry }),
    check: isNull('ledgerEntry'),
  },
  {
    name: "ledgerEntry: A's reconciling entry",
    query: 'query($id: ID!) { ledgerEntry(ledgerEntry: { id: $id }) { ...EntryF } }',
    variables: (w) => ({ id: w.reconciledEntry }),
    check: isNull('ledgerEntry'),
  },
  {
    name: "ledgerEntry by ik in A's ledger",
    query:
      'query($ik: SafeString!, $ledger: SafeString!) { ledgerEntry(ledgerEntry: { ik: $ik, ledger: { ik: $ledger } }) { ...EntryF } }',
    variables: (w) => ({ ik: w.entryIk, ledger: w.plainLedgerIk }),
    check: isNull('ledgerEntry'),
  },
  {
    name: "ledgerEntry by A's ik in B's ledger",
    query: 'query($ik: SafeString!) { ledgerEntry(ledgerEntry: { ik: $ik, ledger: { ik: "b-books" } }) { ...EntryF } }',
    variables: (w) => ({ ik: w.entryIk }),
    check: isNull('ledgerEntry'),
  },
  {
    name: "ledgerEntry: A's entry id with B's ledger",
    query: 'query($id: ID!) { ledgerEntry(ledgerEntry: { id: $id, ledger: { ik: "b-books" } }) { ...EntryF } }',
    variables: (w) => ({ id: w.typedEntry }),
    check: isNull('ledgerEntry'),
  },
  {
    name: "ledgerEntryGroup of A's ledger",
    query: `query($ledger: ID!, $key: SafeString!, $value: SafeString!) {
      ledgerEntryGroup(ledgerEntryGroup: { ledger: { id: $ledger }, key: $key, value: $value }) { key value ledgerEntries { nodes { id } } } }`,
    variables: (w) => ({ ledger: w.plainLedger, key: w.groupKey, value: w.groupValue }),
    check: isNull('ledgerEntryGroup'),
  },
  {
    name: "ledgerEntryGroup: A's group in B's ledger",
    query: `query($key: SafeString!, $value: SafeString!) {
      ledgerEntryGroup(ledgerEntryGroup: { ledger: { ik: "b-books" }, key: $key, value: $value }) { key value ledgerEntries { nodes { id } } } }`,
    variables: (w) => ({ key: w.groupKey, value: w.groupValue }),
    check: isNull('ledgerEntryGroup'),
  },
  {
    name: "ledgerEntryHistory of A's reversed entry",
    query: 'query($id: ID!) { ledgerEntryHistory(ledgerEntry: { id: $id }) { nodes { ...EntryF } } }',
    variables: (w) => ({ id: w.reversedEntry }),
    check: failsWith('ledger_entry_not_found'),
  },
  {
    name: "ledgerEntryHistory by ik in A's ledger",
    query:
      'query($ik: SafeString!, $ledger: SafeString!) { ledgerEntryHistory(ledgerEntry: { ik: $ik, ledger: { ik: $ledger } }) { nodes { ...EntryF } } }',
    variables: (w) => ({ ik: w.reversedEntryIk, ledger: w.plainLedgerIk }),
    check: failsWith('ledger_entry_not_found'),
  },
  {
    name: "ledgerLine by A's id",
    query:
      'query($id: ID!) { ledgerLine(ledgerLine: { id: $id }) { id amount description account { id name } ledgerEntry { id description } tx { id description } } }',
    variables: (w) => ({ id: w.reconciledLine }),
    check: isNull('ledgerLine'),
  },
  {
    name: "link by A's id",
    query:
      'query($id: ID!) { link(link: { id: $id }) { __typename id name externalAccounts { nodes { ...ExternalAccountF } } } }',
    variables: (w) => ({ id: w.link }),
    check: isNull('link'),
  },
  {
    name: "links lists only B's",
    query:
      '{ links { nodes { id name externalAccounts { nodes { ...ExternalAccountF txs { nodes { ...TxF } } } } } } }',
    check: (body) => expect(body.data.links.nodes.map((node: any) => node.name)).toEqual(['B bank']),
  },
  {
    name: "schema by A's key",
    query:
      'query($key: SafeString!) { schema(schema: { key: $key }) { key name versions { nodes { version json } } } }',
    variables: (w) => ({ key: w.schemaKey }),
    check: isNull('schema'),
  },
  {
    name: "schema by A's key and version",
    query:
      'query($key: SafeString!) { schema(schema: { key: $key, version: 2 }) { key name version { version json } } }',
    variables: (w) => ({ key: w.schemaKey }),
    check: isNull('schema'),
  },
  {
    name: 'schemas: B has none',
    query: '{ schemas { nodes { key name } } }',
    check: (body) => expect(body.data.schemas.nodes).toEqual([]),
  },
  {
    name: "schemas after A's cursor",
    query: 'query($after: String) { schemas(after: $after) { nodes { key name } } }',
    variables: (w) => ({ after: w.schemasCursor }),
    check: failsWith('invalid_input_provided'),
  },
  {
    name: "tx by A's id",
    query: 'query($id: ID!) { tx(tx: { id: $id }) { ...TxF } }',
    variables: (w) => ({ id: w.reconciledTx }),
    check: isNull('tx'),
  },
  {
    name: "tx by external id in A's account",
    query:
      'query($externalId: ID!, $account: ID!) { tx(tx: { externalId: $externalId, accountId: $account }) { ...TxF } }',
    variables: (w) => ({ externalId: w.openTxExternalId, account: w.externalAccount }),
    check: isNull('tx'),
  },
  {
    name: "tx by external ids in A's link",
    query:
      'query($externalId: ID!, $account: ID!, $link: ID!) { tx(tx: { externalId: $externalId, externalAccountId: $account, linkId: $link }) { ...TxF } }',
    variables: (w) => ({ externalId: w.openTxExternalId, account: w.externalAccountExternalId, link: w.link }),
    check: isNull('tx'),
  },
  {
    name: "tx: A's external ids in B's link",
    query:
      'query($externalId: ID!, $account: ID!, $link: ID!) { tx(tx: { externalId: $externalId, externalAccountId: $account, linkId: $link }) { ...TxF } }',
    variables: (w) => ({ externalId: w.openTxExternalId, account: w.externalAccountExternalId, link: B.link }),
    check: isNull('tx'),
  },
  {
    name: "externalAccount by A's id",
    query:
      'query($id: ID!) { externalAccount(externalAccount: { id: $id }) { ...ExternalAccountF txs { nodes { ...TxF } } } }',
    variables: (w) => ({ id: w.externalAccount }),
    check: isNull('externalAccount'),
  },
  {
    name: "externalAccount by external id in A's link",
    query:
      'query($link: ID!, $externalId: ID!) { externalAccount(externalAccount: { linkId: $link, externalId: $externalId }) { ...ExternalAccountF } }',
    variables: (w) => ({ link: w.link, externalId: w.externalAccountExternalId }),
    check: isNull('externalAccount'),
  },
  {
    name: 'customCurrencies: B has none',
    query: '{ customCurrencies(first: 200) { nodes { ...CurrencyF } } }',
    check: (body) => expect(body.data.customCurrencies.nodes).toEqual([]),
  },
  {
    name: "customCurrencies after A's cursor",
    query: 'query($after: String) { customCurrencies(after: $after) { nodes { ...CurrencyF } } }',
    variables: (w) => ({ after: w.currenciesCursor }),
    check: failsWith('invalid_input_provided'),
  },

  // ---- mutations that name A's objects: not found, nothing changes
  { name: 'mutation _empty', query: 'mutation { _empty }', check: isNull('_empty') },
  {
    name: "updateLedger by A's id",
    query: `mutation($id: ID!) { updateLedger(ledger: { id: $id }, update: { name: "Renamed by B" }) { ${RESULT('UpdateLedgerResult', 'ledger { ...LedgerF }')} } }`,
    variables: (w) => ({ id: w.plainLedger }),
    check: refused('updateLedger', 'ledger_not_found'),
  },
  {
    name: "updateLedger by A's ik",
    query: `mutation($ik: SafeString!) { updateLedger(ledger: { ik: $ik }, update: { name: "Renamed by B" }) { ${RESULT('UpdateLedgerResult', 'ledger { ...LedgerF }')} } }`,
    variables: (w) => ({ ik: w.plainLedgerIk }),
    check: refused('updateLedger', 'ledger_not_found'),
  },
  {
    name: "deleteLedger by A's id",
    query: `mutation($id: ID!) { deleteLedger(ledger: { id: $id }) { ${RESULT('DeleteLedgerResult', 'success')} } }`,
    variables: (w) => ({ id: w.booksLedger }),
    check: refused('deleteLedger', 'ledger_not_found'),
  },
  {
    name: "deleteLedger by A's ik",
    query: `mutation($ik: SafeString!) { deleteLedger(ledger: { ik: $ik }) { ${RESULT('DeleteLedgerResult', 'success')} } }`,
    variables: (w) => ({ ik: w.plainLedgerIk }),
    check: refused('deleteLedger', 'ledger_not_found'),
  },
  {
    name: "deleteSchema by A's key (in use in A)",
    query: `mutation($key: SafeString!) { deleteSchema(schema: { key: $key }) { ${RESULT('DeleteSchemaResult', 'success')} } }`,
    variables: (w) => ({ key: w.schemaKey }),
    check: refused('deleteSchema', 'schema_not_found'),
  },
  {
    name: "deleteSchema by A's key (unused in A)",
    query: `mutation($key: SafeString!) { deleteSchema(schema: { key: $key }) { ${RESULT('DeleteSchemaResult', 'success')} } }`,
    variables: (w) => ({ key: w.spareSchemaKey }),
    check: refused('deleteSchema', 'schema_not_found'),
  },
  {
    name: "updateLedgerAccount by A's id",
    query: `mutation($id: ID!) { updateLedgerAccount(ledgerAccount: { id: $id }, update: { name: "Renamed by B" }) { ${RESULT('UpdateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ id: w.salesAccount }),
    check: refused('updateLedgerAccount', 'ledger_account_not_found'),
  },
  {
    name: "updateLedgerAccount by path in A's ledger",
    query: `mutation($path: String!, $ledger: SafeString!) {
      updateLedgerAccount(ledgerAccount: { path: $path, ledger: { ik: $ledger } }, update: { consistencyConfig: { ownBalanceUpdates: strong } }) { ${RESULT('UpdateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ path: w.salesAccountIk, ledger: w.plainLedgerIk }),
    check: refused('updateLedgerAccount', 'ledger_account_not_found'),
  },
  {
    name: "createLedgerAccount in A's ledger",
    query: `mutation($ledger: ID!) { createLedgerAccount(ik: "b-new", ledger: { id: $ledger }, ledgerAccount: { name: "B account", type: asset }) {
      ${RESULT('CreateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ ledger: w.plainLedger }),
    check: refused('createLedgerAccount', 'ledger_not_found'),
  },
  {
    name: "createLedgerAccount under A's account",
    query: `mutation($parent: ID!) { createLedgerAccount(ik: "b-child", ledger: { ik: "b-books" }, ledgerAccount: { name: "B child", type: liability, parent: { id: $parent } }) {
      ${RESULT('CreateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ parent: w.owedAccount }),
    check: refused('createLedgerAccount', 'ledger_account_not_found'),
  },
  {
    name: "createLedgerAccount linked to A's external account (id)",
    query: `mutation($account: ID!) { createLedgerAccount(ik: "b-linked", ledger: { ik: "b-books" }, ledgerAccount: { name: "B linked", type: asset, linkedAccount: { id: $account } }) {
      ${RESULT('CreateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ account: w.externalAccount }),
    check: refused('createLedgerAccount', 'external_account_not_found'),
  },
  {
    name: "createLedgerAccount linked to A's external account (link and external id)",
    query: `mutation($link: ID!, $externalId: ID!) {
      createLedgerAccount(ik: "b-linked", ledger: { ik: "b-books" }, ledgerAccount: { name: "B linked", type: asset, linkedAccount: { linkId: $link, externalId: $externalId } }) {
      ${RESULT('CreateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ link: w.link, externalId: w.externalAccountExternalId }),
    check: refused('createLedgerAccount', 'external_account_not_found'),
  },
  {
    name: "createLedgerAccount in A's custom currency",
    query: `mutation($currency: SafeString!) { createLedgerAccount(ik: "b-gold", ledger: { ik: "b-books" }, ledgerAccount: { name: "B gold", type: asset, currency: { code: CUSTOM, customCurrencyId: $currency } }) {
      ${RESULT('CreateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ currency: w.currencyId }),
    check: refused('createLedgerAccount', 'custom_currency_not_found'),
  },
  {
    name: "createLedgerAccounts in A's ledger",
    query: `mutation($ledger: SafeString!) { createLedgerAccounts(ledger: { ik: $ledger }, ledgerAccounts: [{ ik: "b-x", name: "B x", type: asset }]) {
      ${RESULT('CreateLedgerAccountsResult', 'ledgerAccounts { ...AccountF }')} } }`,
    variables: (w) => ({ ledger: w.plainLedgerIk }),
    check: refused('createLedgerAccounts', 'ledger_not_found'),
  },
  {
    name: "createLedgerAccounts under A's account",
    query: `mutation($parent: ID!) { createLedgerAccounts(ledger: { ik: "b-books" }, ledgerAccounts: [{ ik: "b-x", name: "B x", type: liability, parent: { id: $parent } }]) {
      ${RESULT('CreateLedgerAccountsResult', 'ledgerAccounts { ...AccountF }')} } }`,
    variables: (w) => ({ parent: w.owedAccount }),
    check: refused('createLedgerAccounts', 'ledger_account_not_found'),
  },
  {
    name: "addLedgerEntry in A's ledger",
    query: `mutation($entry: LedgerEntryInput!) { addLedgerEntry(ik: "b-e1", entry: $entry) { ${RESULT('AddLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: { ledger: { id: w.plainLedger }, lines: lines({ path: w.extraAccountIk }, { path: w.owedAccountIk }) },
    }),
    check: refused('addLedgerEntry', 'ledger_not_found'),
  },
  {
    name: "addLedgerEntry typed, in A's schema ledger",
    query: `mutation($entry: LedgerEntryInput!) { addLedgerEntry(ik: "b-e1", entry: $entry) { ${RESULT('AddLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: { ledger: { ik: w.booksLedgerIk }, type: 'a_deposit', parameters: { amount: '5', user: 'b-user' } },
    }),
    check: refused('addLedgerEntry', 'ledger_not_found'),
  },
  {
    name: "addLedgerEntry in B's ledger on A's accounts",
    query: `mutation($entry: LedgerEntryInput!) { addLedgerEntry(ik: "b-e2", entry: $entry) { ${RESULT('AddLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: { ledger: { ik: 'b-books' }, lines: lines({ id: w.extraAccount }, { id: w.owedAccount }) },
    }),
    check: refused('addLedgerEntry', 'ledger_account_not_found'),
  },
  {
    name: "addLedgerEntry in B's ledger, one line on A's account",
    query: `mutation($entry: LedgerEntryInput!) { addLedgerEntry(ik: "b-e3", entry: $entry) { ${RESULT('AddLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: { ledger: { ik: 'b-books' }, lines: lines({ path: 'b-cash' }, { id: w.owedAccount }) },
    }),
    check: refused('addLedgerEntry', 'ledger_account_not_found'),
  },
  {
    name: "addLedgerEntry in B's ledger in A's custom currency",
    query: `mutation($entry: LedgerEntryInput!) { addLedgerEntry(ik: "b-e4", entry: $entry) { ${RESULT('AddLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: {
        ledger: { ik: 'b-books' },
        lines: [
          { account: { path: 'b-multi' }, amount: '5', currency: { code: 'CUSTOM', customCurrencyId: w.currencyId } },
          {
            account: { path: 'b-multi-owed' },
            amount: '5',
            currency: { code: 'CUSTOM', customCurrencyId: w.currencyId },
          },
        ],
      },
    }),
    check: refused('addLedgerEntry', 'custom_currency_not_found'),
  },
  {
    name: "addLedgerEntries in A's ledger",
    query: `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) {
      ${RESULT('AddLedgerEntriesResult', 'results { entry { ...EntryF } }')} ... on AddLedgerEntriesError { errors { ik code message } } } }`,
    variables: (w) => ({
      entries: [
        {
          ik: 'b-batch-1',
          entry: { ledger: { id: w.plainLedger }, lines: lines({ path: w.extraAccountIk }, { path: w.owedAccountIk }) },
        },
      ],
    }),
    check: refused('addLedgerEntries', 'ledger_not_found'),
  },
  {
    name: "addLedgerEntries in B's ledger on A's account",
    query: `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) {
      ${RESULT('AddLedgerEntriesResult', 'results { entry { ...EntryF } }')} ... on AddLedgerEntriesError { errors { ik code message } } } }`,
    variables: (w) => ({
      entries: [
        { ik: 'b-batch-2', entry: { ledger: { ik: 'b-books' }, lines: lines({ path: 'b-cash' }, { path: 'b-owed' }) } },
        {
          ik: 'b-batch-3',
          entry: { ledger: { ik: 'b-books' }, lines: lines({ path: 'b-cash' }, { id: w.owedAccount }) },
        },
      ],
    }),
    check: (body) =>
      expect(body.data.addLedgerEntries).toMatchObject({
        __typename: 'AddLedgerEntriesError',
        errors: [{ ik: 'b-batch-3', code: 'ledger_account_not_found' }],
      }),
  },
  {
    name: "reverseLedgerEntry of A's entry",
    query: `mutation($id: ID!) { reverseLedgerEntry(id: $id) { ${RESULT('ReverseLedgerEntryResult', 'reversedLedgerEntry { ...EntryF } reversingLedgerEntry { ...EntryF }')} } }`,
    variables: (w) => ({ id: w.entry }),
    check: refused('reverseLedgerEntry', 'ledger_entry_not_found'),
  },
  {
    name: "reverseLedgerEntry of A's reconciling entry",
    query: `mutation($id: ID!) { reverseLedgerEntry(id: $id) { ${RESULT('ReverseLedgerEntryResult', 'reversedLedgerEntry { ...EntryF }')} } }`,
    variables: (w) => ({ id: w.reconciledEntry }),
    check: refused('reverseLedgerEntry', 'ledger_entry_not_found'),
  },
  {
    name: "reverseLedgerEntry of A's reversed entry",
    query: `mutation($id: ID!) { reverseLedgerEntry(id: $id) { ${RESULT('ReverseLedgerEntryResult', 'reversedLedgerEntry { ...EntryF }')} } }`,
    variables: (w) => ({ id: w.reversedEntry }),
    check: refused('reverseLedgerEntry', 'ledger_entry_not_found'),
  },
  {
    name: "updateLedgerEntry of A's entry (id)",
    query: `mutation($id: ID!) { updateLedgerEntry(ledgerEntry: { id: $id }, update: { tags: [{ key: "by", value: "b" }], groups: [{ key: "by", value: "b" }] }) {
      ${RESULT('UpdateLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({ id: w.entry }),
    check: refused('updateLedgerEntry', 'ledger_entry_not_found'),
  },
  {
    name: "updateLedgerEntry of A's entry (ik)",
    query: `mutation($ik: SafeString!, $ledger: SafeString!) { updateLedgerEntry(ledgerEntry: { ik: $ik, ledger: { ik: $ledger } }, update: { tags: [{ key: "by", value: "b" }] }) {
      ${RESULT('UpdateLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({ ik: w.entryIk, ledger: w.plainLedgerIk }),
    check: refused('updateLedgerEntry', 'ledger_entry_not_found'),
  },
  {
    name: "updateLedgerEntry of B's entry naming A's line",
    query: `mutation($line: ID!) { updateLedgerEntry(ledgerEntry: { ik: "b-entry", ledger: { ik: "b-books" } }, update: { ledgerLines: [{ ledgerLine: { id: $line }, tags: [{ key: "by", value: "b" }] }] }) {
      ${RESULT('UpdateLedgerEntryResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({ line: w.entryLine }),
    check: refused('updateLedgerEntry', 'invalid_input_provided'),
  },
  {
    name: "migrateLedgerEntry of A's entry",
    query: `mutation($input: MigrateLedgerEntryInput!) { migrateLedgerEntry(input: $input) {
      ${RESULT('MigrateLedgerEntryResult', 'newLedgerEntry { ...EntryF } reversedLedgerEntry { ...EntryF }')} } }`,
    variables: (w) => ({
      input: {
        id: w.typedEntry,
        newLedgerEntry: {
          ledger: { ik: w.booksLedgerIk },
          type: 'a_deposit',
          parameters: { amount: '1', user: 'b-user' },
        },
      },
    }),
    check: refused('migrateLedgerEntry', 'ledger_entry_not_found'),
  },
  {
    name: "migrateLedgerEntry of B's entry into A's ledger",
    query: `mutation($input: MigrateLedgerEntryInput!) { migrateLedgerEntry(input: $input) {
      ${RESULT('MigrateLedgerEntryResult', 'newLedgerEntry { ...EntryF }')} } }`,
    variables: (w) => ({
      input: {
        id: B.entry,
        newLedgerEntry: {
          ledger: { id: w.plainLedger },
          lines: lines({ path: w.extraAccountIk }, { path: w.owedAccountIk }),
        },
      },
    }),
    check: refused('migrateLedgerEntry', 'ledger_not_found'),
  },
  {
    name: "syncCustomAccounts into A's link",
    query: `mutation($link: ID!) { syncCustomAccounts(link: { id: $link }, accounts: [{ externalId: "b-acc", name: "B account" }]) {
      ${RESULT('SyncCustomAccountsResult', 'accounts { ...ExternalAccountF }')} } }`,
    variables: (w) => ({ link: w.link }),
    check: refused('syncCustomAccounts', 'link_not_found'),
  },
  {
    name: "syncCustomAccounts in A's custom currency",
    query: `mutation($currency: SafeString!) { syncCustomAccounts(link: { id: "@B_LINK@" }, accounts: [{ externalId: "b-gold", name: "B gold", currency: { code: CUSTOM, customCurrencyId: $currency } }]) {
      ${RESULT('SyncCustomAccountsResult', 'accounts { ...ExternalAccountF }')} } }`,
    variables: (w) => ({ currency: w.currencyId }),
    check: refused('syncCustomAccounts', 'custom_currency_not_found'),
  },
  {
    name: "syncCustomTxs into A's link",
    query: `mutation($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) { ${RESULT('SyncCustomTxsResult', 'txs { ...TxF }')} } }`,
    variables: (w) => ({
      link: w.link,
      txs: [
        {
          externalId: 'b-tx',
          account: { id: w.externalAccount },
          amount: '5',
          description: 'B tx',
          posted: '2026-02-03T14:30:00Z',
        },
      ],
    }),
    check: refused('syncCustomTxs', 'link_not_found'),
  },
  {
    name: "syncCustomTxs in B's link on A's external account (id)",
    query: `mutation($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) { ${RESULT('SyncCustomTxsResult', 'txs { ...TxF }')} } }`,
    variables: (w) => ({
      link: B.link,
      txs: [
        {
          externalId: 'b-tx',
          account: { id: w.externalAccount },
          amount: '5',
          description: 'B tx',
          posted: '2026-02-03T14:30:00Z',
        },
      ],
    }),
    check: refused('syncCustomTxs', 'external_account_not_found'),
  },
  {
    name: "syncCustomTxs in B's link on A's external account (link and external id)",
    query: `mutation($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) { ${RESULT('SyncCustomTxsResult', 'txs { ...TxF }')} } }`,
    variables: (w) => ({
      link: B.link,
      txs: [
        {
          externalId: 'b-tx',
          account: { linkId: w.link, externalId: w.externalAccountExternalId },
          amount: '5',
          description: 'B tx',
          posted: '2026-02-03T14:30:00Z',
        },
      ],
    }),
    check: refused('syncCustomTxs', 'external_account_not_found'),
  },
  {
    name: "deleteCustomTxs of A's open transaction",
    query: `mutation($txs: [ID!]!) { deleteCustomTxs(txs: $txs) { ${RESULT('DeleteCustomTxsResult', 'txs { tx { ...TxF } }')} } }`,
    variables: (w) => ({ txs: [w.openTx] }),
    check: refused('deleteCustomTxs', 'tx_not_found'),
  },
  {
    name: "deleteCustomTxs of A's reconciled transaction",
    query: `mutation($txs: [ID!]!) { deleteCustomTxs(txs: $txs) { ${RESULT('DeleteCustomTxsResult', 'txs { tx { ...TxF } }')} } }`,
    variables: (w) => ({ txs: [w.reconciledTx] }),
    check: refused('deleteCustomTxs', 'tx_not_found'),
  },
  {
    name: "deleteCustomTxs of B's and A's transactions together",
    query: `mutation($txs: [ID!]!) { deleteCustomTxs(txs: $txs) { ${RESULT('DeleteCustomTxsResult', 'txs { tx { ...TxF } }')} } }`,
    variables: (w) => ({ txs: [B.tx, w.openTx] }),
    check: refused('deleteCustomTxs', 'tx_not_found'),
  },
  {
    name: "reconcileTx in A's ledger",
    query: `mutation($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) { ${RESULT('ReconcileTxResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: {
        ledger: { id: w.plainLedger },
        lines: [
          { account: { path: w.bankAccountIk }, amount: '-40', tx: { id: w.openTx } },
          { account: { path: w.salesAccountIk }, amount: '-40' },
        ],
      },
    }),
    check: refused('reconcileTx', 'ledger_not_found'),
  },
  {
    name: "reconcileTx of A's transaction (id) in B's ledger",
    query: `mutation($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) { ${RESULT('ReconcileTxResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: {
        ledger: { ik: 'b-books' },
        lines: [
          { account: { path: 'b-bank' }, amount: '-40', tx: { id: w.openTx } },
          { account: { path: 'b-sales' }, amount: '-40' },
        ],
      },
    }),
    check: refused('reconcileTx', 'tx_not_found'),
  },
  {
    name: "reconcileTx of A's transaction (external id) in B's ledger",
    query: `mutation($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) { ${RESULT('ReconcileTxResult', 'entry { ...EntryF }')} } }`,
    variables: (w) => ({
      entry: {
        ledger: { ik: 'b-books' },
        lines: [
          {
            account: { path: 'b-bank' },
            amount: '-40',
            tx: { externalId: w.openTxExternalId, accountId: w.externalAccount },
          },
          { account: { path: 'b-sales' }, amount: '-40' },
        ],
      },
    }),
    check: refused('reconcileTx', 'tx_not_found'),
  },
  {
    name: "createPayment in A's ledger",
    query: `mutation($ik: SafeString!, $ledger: SafeString!) { createPayment(ik: $ik, ledger: { ik: $ledger }, amount: "500") { __typename ...ErrorF ... on Payment { clientSecret status } } }`,
    variables: (w) => ({ ik: w.paymentIk, ledger: w.booksLedgerIk }),
    check: refused('createPayment', 'ledger_not_found'),
  },
  {
    name: "createLedger on A's schema",
    query: `mutation($key: SafeString!) { createLedger(ik: "b-on-schema", ledger: { name: "B on schema" }, schema: { key: $key }) { ${RESULT('CreateLedgerResult', 'ledger { ...LedgerF }')} } }`,
    variables: (w) => ({ key: w.schemaKey }),
    check: refused('createLedger', 'schema_not_found'),
  },
  {
    name: "storeSchema in A's custom currency",
    query: `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { ${RESULT('StoreSchemaResult', 'schema { key name }')} } }`,
    variables: (w) => ({
      schema: {
        key: 'b-gold-schema',
        chartOfAccounts: {
          accounts: [{ key: 'vault', type: 'asset', currency: { code: 'CUSTOM', customCurrencyId: w.currencyId } }],
        },
      },
    }),
    check: refused('storeSchema', 'custom_currency_not_found'),
  },
  {
    name: "storeSchema under A's key linked to A's external account, then a ledger on it",
    query: `mutation($schema: SchemaInput!, $key: SafeString!) {
      storeSchema(schema: $schema) { ${RESULT('StoreSchemaResult', 'schema { key name }')} }
      createLedger(ik: "b-linked-ledger", ledger: { name: "B linked" }, schema: { key: $key }) { ${RESULT('CreateLedgerResult', 'ledger { ...LedgerF }')} } }`,
    variables: (w) => ({
      key: w.spareSchemaKey,
      schema: {
        key: w.spareSchemaKey,
        chartOfAccounts: {
          accounts: [
            { key: 'bank', type: 'asset', linkedAccount: { linkId: w.link, externalId: w.externalAccountExternalId } },
          ],
        },
      },
    }),
    check: (body) => {
      expect(body.data.storeSchema.__typename).toBe('StoreSchemaResult');
      expect(body.data.createLedger).toMatchObject({
        __typename: 'BadRequestError',
        code: 'external_account_not_found',
      });
    },
  },

  // ---- creates by A's keys: fresh objects of B's own
  {
    name: "createLedger with A's ik",
    query: `mutation($ik: SafeString!) { createLedger(ik: $ik, ledger: { name: "B ledger" }) { ${RESULT('CreateLedgerResult', 'isIkReplay ledger { ...LedgerF ledgerAccounts { nodes { id } } }')} } }`,
    variables: (w) => ({ ik: w.plainLedgerIk }),
    check: (body) =>
      expect(body.data.createLedger).toMatchObject({
        __typename: 'CreateLedgerResult',
        isIkReplay: false,
        ledger: { name: 'B ledger', workspaceId: wb.workspaceId, schema: null, ledgerAccounts: { nodes: [] } },
      }),
  },
  {
    name: "createLedger with the ik of A's deleted ledger",
    query: `mutation($ik: SafeString!) { createLedger(ik: $ik, ledger: { name: "B reuses" }) { ${RESULT('CreateLedgerResult', 'isIkReplay ledger { ...LedgerF }')} } }`,
    variables: (w) => ({ ik: w.deletedLedgerIk }),
    check: (body) =>
      expect(body.data.createLedger).toMatchObject({
        __typename: 'CreateLedgerResult',
        isIkReplay: false,
        ledger: { name: 'B reuses' },
      }),
  },
  {
    name: "storeSchema with A's key",
    query: `mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { ${RESULT('StoreSchemaResult', 'schema { key name versions { nodes { version json } } ledgers { nodes { id } } }')} } }`,
    variables: (w) => ({
      schema: { key: w.schemaKey, name: 'B schema', chartOfAccounts: { accounts: [{ key: 'till', type: 'asset' }] } },
    }),
    check: (body) => {
      const schema = body.data.storeSchema.schema;
      expect([schema.name, schema.versions.nodes.map((node: any) => node.version), schema.ledgers.nodes]).toEqual([
        'B schema',
        [1],
        [],
      ]);
    },
  },
  {
    name: "deleteSchema of B's own schema under A's key",
    query: `mutation($key: SafeString!) { deleteSchema(schema: { key: $key }) { ${RESULT('DeleteSchemaResult', 'success')} } }`,
    variables: (w) => ({ key: w.schemaKey }),
    check: (body) => expect(body.data.deleteSchema).toEqual({ __typename: 'DeleteSchemaResult', success: true }),
  },
  {
    name: "createLedgerAccount with A's ik",
    query: `mutation($ik: SafeString!) { createLedgerAccount(ik: $ik, ledger: { ik: "b-books" }, ledgerAccount: { name: "B extra", type: expense }) {
      ${RESULT('CreateLedgerAccountResult', 'isIkReplay ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ ik: w.extraAccountIk }),
    check: (body) =>
      expect(body.data.createLedgerAccount).toMatchObject({
        isIkReplay: false,
        ledgerAccount: { name: 'B extra', type: 'expense' },
      }),
  },
  {
    name: "createLedgerAccounts with A's iks",
    query: `mutation($accounts: [CreateLedgerAccountsInput!]!) { createLedgerAccounts(ledger: { ik: "b-books" }, ledgerAccounts: $accounts) {
      ${RESULT('CreateLedgerAccountsResult', 'ledgerAccounts { ...AccountF }')} } }`,
    variables: (w) => ({
      accounts: [
        {
          ik: w.owedAccountIk,
          name: 'B owed',
          type: 'liability',
          childLedgerAccounts: [{ ik: w.owedChildIk, name: 'B owed child' }],
        },
      ],
    }),
    check: (body) =>
      expect(body.data.createLedgerAccounts.ledgerAccounts.map((account: any) => account.name)).toEqual([
        'B owed',
        'B owed child',
      ]),
  },
  {
    name: "addLedgerEntry with A's entry ik",
    query: `mutation($ik: SafeString!) { addLedgerEntry(ik: $ik, entry: { ledger: { ik: "b-books" }, description: "B entry", lines: [
      { account: { path: "b-cash" }, amount: "9" }, { account: { path: "b-owed" }, amount: "9" }] }) { ${RESULT('AddLedgerEntryResult', 'isIkReplay entry { ...EntryF }')} } }`,
    variables: (w) => ({ ik: w.entryIk }),
    check: (body) =>
      expect(body.data.addLedgerEntry).toMatchObject({ isIkReplay: false, entry: { description: 'B entry' } }),
  },
  {
    name: "addLedgerEntries with A's entry iks",
    query: `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) {
      ${RESULT('AddLedgerEntriesResult', 'results { isIkReplay entry { ...EntryF } }')} ... on AddLedgerEntriesError { errors { ik code message } } } }`,
    variables: (w) => ({
      entries: [w.batchEntryIk, w.reversedEntryIk].map((ik) => ({
        ik,
        entry: { ledger: { ik: 'b-books' }, lines: lines({ path: 'b-cash' }, { path: 'b-owed' }, '2') },
      })),
    }),
    check: (body) =>
      expect(body.data.addLedgerEntries.results.map((result: any) => result.isIkReplay)).toEqual([false, false]),
  },
  {
    name: "createCustomCurrency with A's currency id",
    query: `mutation($id: SafeString!) { createCustomCurrency(customCurrency: { customCurrencyId: $id, customCode: "BGLD", name: "B gold", precision: 3 }) {
      ${RESULT('CreateCustomCurrencyResult', 'customCurrency { ...CurrencyF }')} } }`,
    variables: (w) => ({ id: w.currencyId }),
    check: (body) =>
      expect(body.data.createCustomCurrency).toMatchObject({
        __typename: 'CreateCustomCurrencyResult',
        customCurrency: { customCode: 'BGLD', name: 'B gold', precision: 3 },
      }),
  },
  {
    name: "createCustomLink with A's ik",
    query: `mutation($ik: SafeString!) { createCustomLink(ik: $ik, name: "B second bank") { ${RESULT('CreateCustomLinkResult', 'isIkReplay link { id name externalAccounts { nodes { id } } }')} } }`,
    variables: (w) => ({ ik: w.linkIk }),
    check: (body) =>
      expect(body.data.createCustomLink).toMatchObject({
        isIkReplay: false,
        link: { name: 'B second bank', externalAccounts: { nodes: [] } },
      }),
  },
  {
    name: "syncCustomAccounts with A's external id",
    query: `mutation($externalId: SafeString!) { syncCustomAccounts(link: { id: "@B_LINK@" }, accounts: [{ externalId: $externalId, name: "B operating" }]) {
      ${RESULT('SyncCustomAccountsResult', 'accounts { ...ExternalAccountF txs { nodes { id } } }')} } }`,
    variables: (w) => ({ externalId: w.externalAccountExternalId }),
    check: (body) =>
      expect(body.data.syncCustomAccounts.accounts).toMatchObject([{ name: 'B operating', txs: { nodes: [] } }]),
  },
  {
    name: "syncCustomTxs with A's external ids",
    query: `mutation($txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: "@B_LINK@" }, txs: $txs) { ${RESULT('SyncCustomTxsResult', 'txs { ...TxF sequence }')} } }`,
    variables: (w) => ({
      txs: [
        {
          externalId: w.reconciledTxExternalId,
          account: { linkId: B.link, externalId: w.externalAccountExternalId },
          amount: '7',
          description: 'B tx',
          posted: '2026-03-01T00:00:00Z',
        },
      ],
    }),
    check: (body) =>
      expect(body.data.syncCustomTxs.txs).toMatchObject([
        { description: 'B tx', amount: '7', sequence: 1, ledgerEntryIds: [] },
      ]),
  },
  {
    name: "createPayment with A's payment ik",
    query: `mutation($ik: SafeString!) { createPayment(ik: $ik, ledger: { ik: "b-books" }, amount: "500") { __typename ...ErrorF ... on Payment { clientSecret status } } }`,
    variables: (w) => ({ ik: w.paymentIk }),
    check: (body) =>
      expect(body.data.createPayment).toMatchObject({ __typename: 'Payment', status: 'requires_confirmation' }),
  },

  // ---- after B's creates: B reads its own objects under A's keys, never A's
  {
    name: "ledger by A's ik is now B's",
    query:
      'query($ik: SafeString!) { ledger(ledger: { ik: $ik }) { ...LedgerF ledgerAccounts { nodes { ...AccountF } } ledgerEntries { nodes { ...EntryF } } } }',
    variables: (w) => ({ ik: w.plainLedgerIk }),
    check: (body) =>
      expect(body.data.ledger).toMatchObject({
        name: 'B ledger',
        workspaceId: wb.workspaceId,
        ledgerAccounts: { nodes: [] },
        ledgerEntries: { nodes: [] },
      }),
  },
  {
    name: "ledgerAccount by A's path in B's ledger of the same ik",
    query:
      'query($path: String!, $ik: SafeString!) { ledgerAccount(ledgerAccount: { path: $path, ledger: { ik: $ik } }) { ...AccountF } }',
    variables: (w) => ({ path: w.bankAccountIk, ik: w.plainLedgerIk }),
    check: isNull('ledgerAccount'),
  },
  {
    name: "ledgerEntryHistory by A's ik is B's",
    query:
      'query($ik: SafeString!) { ledgerEntryHistory(ledgerEntry: { ik: $ik, ledger: { ik: "b-books" } }) { nodes { ...EntryF } } }',
    variables: (w) => ({ ik: w.entryIk }),
    check: (body) =>
      expect(body.data.ledgerEntryHistory.nodes.map((node: any) => node.description)).toEqual(['B entry']),
  },
  {
    name: "ledgerEntryGroup of B's ledger of A's ik",
    query: `query($ledger: SafeString!, $key: SafeString!, $value: SafeString!) {
      ledgerEntryGroup(ledgerEntryGroup: { ledger: { ik: $ledger }, key: $key, value: $value }) { key value } }`,
    variables: (w) => ({ ledger: w.plainLedgerIk, key: w.groupKey, value: w.groupValue }),
    check: isNull('ledgerEntryGroup'),
  },
  {
    name: "ledgers lists B's own, old and new",
    query: '{ ledgers(first: 200) { nodes { ...LedgerF } } }',
    check: (body) =>
      expect(body.data.ledgers.nodes.every((node: any) => node.workspaceId === wb.workspaceId)).toBe(true),
  },
  {
    name: "customCurrencies lists B's own",
    query: '{ customCurrencies(first: 200) { nodes { ...CurrencyF } } }',
    check: (body) =>
      expect(body.data.customCurrencies.nodes.map((node: any) => node.name)).toEqual(['B gold', 'B gold']),
  },
  {
    name: "externalAccount by A's external id in B's link",
    query:
      'query($externalId: ID!) { externalAccount(externalAccount: { linkId: "@B_LINK@", externalId: $externalId }) { ...ExternalAccountF txs { nodes { ...TxF } } } }',
    variables: (w) => ({ externalId: w.externalAccountExternalId }),
    check: (body) =>
      expect(body.data.externalAccount).toMatchObject({
        name: 'B operating',
        txs: { nodes: [{ description: 'B tx' }] },
      }),
  },
  {
    name: "tx by A's external ids in B's link",
    query:
      'query($externalId: ID!, $account: ID!) { tx(tx: { externalId: $externalId, externalAccountId: $account, linkId: "@B_LINK@" }) { ...TxF } }',
    variables: (w) => ({ externalId: w.reconciledTxExternalId, account: w.externalAccountExternalId }),
    check: (body) => expect(body.data.tx).toMatchObject({ description: 'B tx', ledgerEntryIds: [] }),
  },
  {
    name: "deleteLedger of B's ledger under A's deleted ik",
    query: `mutation($ik: SafeString!) { deleteLedger(ledger: { ik: $ik }) { ${RESULT('DeleteLedgerResult', 'success')} } }`,
    variables: (w) => ({ ik: w.deletedLedgerIk }),
    check: (body) => expect(body.data.deleteLedger).toEqual({ __typename: 'DeleteLedgerResult', success: true }),
  },
  {
    name: "updateLedger of B's ledger under A's ik",
    query: `mutation($ik: SafeString!) { updateLedger(ledger: { ik: $ik }, update: { name: "B ledger renamed" }) { ${RESULT('UpdateLedgerResult', 'ledger { ...LedgerF }')} } }`,
    variables: (w) => ({ ik: w.plainLedgerIk }),
    check: (body) => expect(body.data.updateLedger.ledger.name).toBe('B ledger renamed'),
  },
  {
    name: "updateLedgerAccount of B's account under A's ik",
    query: `mutation($ik: SafeString!) { updateLedgerAccount(ledgerAccount: { ik: $ik, ledger: { ik: "b-books" } }, update: { name: "B extra renamed" }) {
      ${RESULT('UpdateLedgerAccountResult', 'ledgerAccount { ...AccountF }')} } }`,
    variables: (w) => ({ ik: w.extraAccountIk }),
    check: (body) => expect(body.data.updateLedgerAccount.ledgerAccount.name).toBe('B extra renamed'),
  },
];

// ---------------------------------------------------------------- REST cases

type HttpRequest = { method: string; path: string; body?: unknown; form?: Record<string, string>; prefix?: string };
type RestCase = {
  name: string;
  request: (w: World) => HttpRequest;
  /** How B authenticates: its bearer token (default), or HTTP Basic credentials for the token route. */
  auth?: (w: World) => string;
  check: (answer: Answer) => void;
};

const enc = encodeURIComponent;
const expectStatus = (code: number, error?: string) => (answer: Answer) => {
  expect(answer.status, answer.text).toBe(code);
  if (error) expect(answer.body.code).toBe(error);
};
const emptyList = (answer: Answer) => {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.data).toEqual([]);
};
const line = (user: unknown, extra: Record<string, unknown> = {}) => ({
  description: 'B line',
  product_id: 'b-prod',
  type: 'payin',
  user,
  currency_code: 'USD',
  price: { amount: '100' },
  ...extra,
});
const bankTx = (externalId: string, extra: Record<string, unknown>) => ({
  account: { external_id: 'b-operating' },
  allocations: [],
  amount: '100',
  currency: 'USD',
  external_id: externalId,
  posted: '2026-11-05T10:00:00Z',
  ...extra,
});

const REST_CASES: RestCase[] = [
  // ---- reads, while B holds nothing under A's keys
  {
    name: "listProducts lists only B's",
    request: () => ({ method: 'GET', path: '/products' }),
    check: (answer) => expect(answer.body.data.map((p: any) => p.code)).toEqual(['b-prod']),
  },
  {
    name: "getProduct by A's code",
    request: (w) => ({ method: 'GET', path: `/products/${enc(w.productCode)}` }),
    check: expectStatus(404, 'product_not_found'),
  },
  {
    name: "getProduct by A's product id",
    request: (w) => ({ method: 'GET', path: `/products/${enc(w.product)}` }),
    check: expectStatus(404, 'product_not_found'),
  },
  {
    name: "listInvoices lists only B's",
    request: () => ({ method: 'GET', path: '/invoices' }),
    check: (answer) => expect(answer.body.data.map((i: any) => i.id)).toEqual(['b-inv', 'b-inv-open']),
  },
  {
    name: "getInvoice by A's id",
    request: (w) => ({ method: 'GET', path: `/invoices/${enc(w.invoice)}` }),
    check: expectStatus(404, 'invoice_not_found'),
  },
  {
    name: "listInvoiceHistory of A's invoice",
    request: (w) => ({ method: 'GET', path: `/invoices/${enc(w.invoice)}/history` }),
    check: expectStatus(404, 'invoice_not_found'),
  },
  {
    name: "listTransactions lists only B's",
    request: () => ({ method: 'GET', path: '/transactions' }),
    check: (answer) => expect(answer.body.data.map((t: any) => t.external_id)).toEqual(['b-btx']),
  },
  {
    name: "listTransactions of A's account (id)",
    request: (w) => ({ method: 'GET', path: `/transactions?account=${enc(w.billingAccount)}` }),
    check: emptyList,
  },
  {
    name: "listTransactions of A's account (external id)",
    request: (w) => ({
      method: 'GET',
      path: `/transactions?account=${enc(w.billingAccountExternalId)}&reconciliation_status=reconciled`,
    }),
    check: emptyList,
  },
  {
    name: "searchAllocations of A's invoices",
    request: (w) => ({
      method: 'POST',
      path: '/transactions/allocations/search',
      body: { filter: { invoice_id: { any: [w.invoice, w.otherInvoice] } } },
    }),
    check: emptyList,
  },
  {
    name: "searchPaymentFlows of A's invoice",
    request: (w) => ({ method: 'POST', path: '/payment-flows/search', body: { invoice_id: w.invoice } }),
    check: emptyList,
  },
  {
    name: "searchPaymentFlows lists only B's",
    request: () => ({ method: 'POST', path: '/payment-flows/search', body: {} }),
    check: (answer) => expect(answer.body.data.map((f: any) => f.external_id)).toEqual(['b-flow']),
  },
  {
    name: "searchPaymentFlows after A's cursor",
    request: (w) => ({ method: 'POST', path: '/payment-flows/search', body: { page_info: { after: w.flowsCursor } } }),
    check: expectStatus(400, 'invalid_request'),
  },
  {
    name: "getPaymentFlow by A's id",
    request: (w) => ({ method: 'GET', path: `/payment-flows/${enc(w.flow)}` }),
    check: expectStatus(404, 'payment_flow_not_found'),
  },
  {
    name: "getPaymentFlow by A's external id",
    request: (w) => ({ method: 'GET', path: `/payment-flows/${enc(w.flowExternalId)}` }),
    check: expectStatus(404, 'payment_flow_not_found'),
  },
  {
    name: "getPayment by A's id",
    request: (w) => ({ method: 'GET', path: `/payments/${enc(w.payment)}` }),
    check: expectStatus(404, 'payment_not_found'),
  },
  {
    name: "searchPayments of A's flow",
    request: (w) => ({ method: 'POST', path: '/payments/search', body: { payment_flow_id: w.flow } }),
    check: emptyList,
  },
  {
    name: "searchPayments after A's cursor",
    request: (w) => ({ method: 'POST', path: '/payments/search', body: { page_info: { after: w.paymentsCursor } } }),
    check: expectStatus(400, 'invalid_request'),
  },

  // ---- writes naming A's objects: not found, unknown reference, nothing changes
  {
    name: "updateInvoice of A's invoice",
    request: (w) => ({
      method: 'PATCH',
      path: `/invoices/${enc(w.invoice)}`,
      body: { current_invoice_version: 2, tags: { set: [{ key: 'by', value: 'b' }] } },
    }),
    check: expectStatus(404, 'invoice_not_found'),
  },
  {
    name: "updateInvoice of B's invoice updating A's line item",
    request: (w) => ({
      method: 'PATCH',
      path: '/invoices/b-inv',
      body: { current_invoice_version: 1, line_items: { update: [{ id: w.lineItem, description: 'B line' }] } },
    }),
    check: expectStatus(400, 'unknown_line_item'),
  },
  {
    name: "updateInvoice of B's invoice deleting A's line item",
    request: (w) => ({
      method: 'PATCH',
      path: '/invoices/b-inv',
      body: { current_invoice_version: 1, line_items: { delete: [{ id: w.lineItem }] } },
    }),
    check: expectStatus(400, 'unknown_line_item'),
  },
  {
    name: "updateInvoice of B's invoice adding a line for A's user",
    request: (w) => ({
      method: 'PATCH',
      path: '/invoices/b-inv',
      body: { current_invoice_version: 1, line_items: { create: [line({ id: w.user })] } },
    }),
    check: expectStatus(400, 'unknown_user'),
  },
  {
    name: "updateInvoice of B's invoice adding a line of A's product (code)",
    request: (w) => ({
      method: 'PATCH',
      path: '/invoices/b-inv',
      body: {
        current_invoice_version: 1,
        line_items: { create: [line({ external_id: 'b-customer' }, { product_id: w.productCode })] },
      },
    }),
    check: expectStatus(400, 'unknown_product'),
  },
  {
    name: "updateInvoiceLegacy of A's invoice",
    request: (w) => ({
      method: 'POST',
      path: `/invoices/${enc(w.invoice)}`,
      body: { version: 2, line_items_update: [{ op: 'delete', id: w.lineItem }] },
    }),
    check: expectStatus(404, 'invoice_not_found'),
  },
  {
    name: "updateInvoiceLegacy of B's invoice deleting A's line item",
    request: (w) => ({
      method: 'POST',
      path: '/invoices/b-inv',
      body: { version: 1, line_items_update: [{ op: 'delete', id: w.lineItem }] },
    }),
    check: expectStatus(400, 'unknown_line_item'),
  },
  {
    name: "updateInvoiceLegacy of B's invoice repricing A's line item",
    request: (w) => ({
      method: 'POST',
      path: '/invoices/b-inv',
      body: { version: 1, line_items_update: [{ op: 'update', id: w.lineItem, amount: '1' }] },
    }),
    check: expectStatus(400, 'unknown_line_item'),
  },
  {
    name: "createInvoice with a line of A's product (id)",
    request: (w) => ({
      method: 'POST',
      path: '/invoices',
      body: { invoice_id: 'b-inv-2', line_items: [line({ external_id: 'b-customer' }, { product_id: w.product })] },
    }),
    check: expectStatus(400, 'unknown_product'),
  },
  {
    name: "createInvoice with a line for A's user",
    request: (w) => ({
      method: 'POST',
      path: '/invoices',
      body: { invoice_id: 'b-inv-2', line_items: [line({ id: w.user })] },
    }),
    check: expectStatus(400, 'unknown_user'),
  },
  {
    name: "syncTransaction on A's external account",
    request: (w) => ({
      method: 'POST',
      path: '/transactions',
      body: bankTx('b-btx-2', { account: { id: w.billingAccount } }),
    }),
    check: expectStatus(400, 'unknown_account'),
  },
  {
    name: "syncTransaction on A's external account with B's external id",
    request: (w) => ({
      method: 'POST',
      path: '/transactions',
      body: bankTx('b-btx-2', { account: { id: w.billingAccount, external_id: 'b-operating' } }),
    }),
    check: expectStatus(400, 'unknown_account'),
  },
  {
    name: "syncTransaction allocated to A's invoice",
    request: (w) => ({
      method: 'POST',
      path: '/transactions',
      body: bankTx('b-btx-2', {
        allocations: [
          { amount: '100', invoice_id: w.otherInvoice, type: 'invoice_payin', user: { external_id: 'b-customer' } },
        ],
      }),
    }),
    check: expectStatus(400, 'unknown_invoice'),
  },
  {
    name: "syncTransaction allocated to A's user",
    request: (w) => ({
      method: 'POST',
      path: '/transactions',
      body: bankTx('b-btx-2', {
        allocations: [{ amount: '100', invoice_id: 'b-inv', type: 'invoice_payin', user: { id: w.user } }],
      }),
    }),
    check: expectStatus(400, 'unknown_user'),
  },
  {
    name: "createProduct with A's role",
    request: (w) => ({
      method: 'POST',
      path: '/products',
      body: { code: 'b-prod-2', description: 'B product 2', paid_by_roles: [{ id: w.role }] },
    }),
    check: expectStatus(400, 'unknown_role'),
  },
  {
    name: "createPaymentFlow for A's invoice (id)",
    request: (w) => ({
      method: 'POST',
      path: '/payment-flows',
      body: { external_id: 'b-flow-2', invoice: { id: w.otherInvoice }, type: 'single_invoice_settlement' },
    }),
    check: expectStatus(400, 'unknown_invoice'),
  },
  {
    name: "createPaymentFlow for A's invoice (external id)",
    request: (w) => ({
      method: 'POST',
      path: '/payment-flows',
      body: { external_id: 'b-flow-2', invoice: { external_id: w.otherInvoice }, type: 'single_invoice_settlement' },
    }),
    check: expectStatus(400, 'unknown_invoice'),
  },

  // ---- creates by A's keys: fresh objects of B's own
  {
    name: "createProduct with A's code and role names",
    request: (w) => ({
      method: 'POST',
      path: '/products',
      body: { code: w.productCode, description: 'B product', paid_by_roles: [{ name: w.roleName }] },
    }),
    check: (answer) => {
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.data).toMatchObject({
        description: 'B product',
        workspaceId: wb.workspaceId,
        paid_to_roles: [],
      });
    },
  },
  {
    name: "createInvoice with A's invoice id and user",
    request: (w) => ({
      method: 'POST',
      path: '/invoices',
      body: { invoice_id: w.invoice, line_items: [line({ external_id: w.userExternalId })] },
    }),
    check: (answer) => {
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.data).toMatchObject({
        version: 1,
        workspace_id: wb.workspaceId,
        tags: [],
        line_items: [{ description: 'B line' }],
      });
    },
  },
  {
    name: "syncTransaction with A's external ids, allocated to B's invoice of A's id",
    request: (w) => ({
      method: 'POST',
      path: '/transactions',
      body: bankTx(w.transactionExternalId, {
        account: { external_id: w.billingAccountExternalId },
        allocations: [
          { amount: '100', invoice_id: w.invoice, type: 'invoice_payin', user: { external_id: w.userExternalId } },
        ],
      }),
    }),
    check: (answer) => {
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.data).toMatchObject({ amount: '100', allocations: [{ amount: '100' }] });
    },
  },
  {
    name: "createPaymentFlow with A's external id for B's invoice of A's id",
    request: (w) => ({
      method: 'POST',
      path: '/payment-flows',
      body: { external_id: w.flowExternalId, invoice: { id: w.invoice }, type: 'single_invoice_settlement' },
    }),
    check: (answer) => {
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.data.status).toBe('completed');
    },
  },

  // ---- after B's creates: B reads its own objects under A's keys, never A's
  {
    name: "getProduct by A's code is B's",
    request: (w) => ({ method: 'GET', path: `/products/${enc(w.productCode)}` }),
    check: (answer) => expect(answer.body.data.description).toBe('B product'),
  },
  {
    name: "getInvoice by A's id is B's",
    request: (w) => ({ method: 'GET', path: `/invoices/${enc(w.invoice)}` }),
    check: (answer) => expect(answer.body.data).toMatchObject({ version: 1, line_items: [{ description: 'B line' }] }),
  },
  {
    name: "listInvoiceHistory of A's id is B's",
    request: (w) => ({ method: 'GET', path: `/invoices/${enc(w.invoice)}/history` }),
    check: (answer) => expect(answer.body.data).toHaveLength(1),
  },
  {
    name: "listTransactions of A's account external id is B's",
    request: (w) => ({ method: 'GET', path: `/transactions?account=${enc(w.billingAccountExternalId)}` }),
    check: (answer) => expect(answer.body.data.map((t: any) => t.amount)).toEqual(['100']),
  },
  {
    name: "searchAllocations of A's invoice id are B's",
    request: (w) => ({
      method: 'POST',
      path: '/transactions/allocations/search',
      body: { filter: { invoice_id: { any: [w.invoice] } } },
    }),
    check: (answer) => expect(answer.body.data.map((a: any) => a.amount)).toEqual(['100']),
  },
  {
    name: "getPaymentFlow by A's external id is B's",
    request: (w) => ({ method: 'GET', path: `/payment-flows/${enc(w.flowExternalId)}` }),
    check: (answer) => expect(answer.body.data.status).toBe('completed'),
  },
  {
    name: "searchPayments of B's flow",
    request: () => ({ method: 'POST', path: '/payments/search', body: { payment_flow_id: B.flow } }),
    check: (answer) => expect(answer.body.data.map((p: any) => p.payment_flow_id)).toEqual([B.flow]),
  },
  {
    name: "getPayment of B's flow",
    request: () => ({ method: 'GET', path: `/payments/${B.payment}` }),
    check: (answer) => expect(answer.body.data.payment_flow_id).toBe(B.flow),
  },

  // ---- the routes outside billing
  {
    name: "createAccessToken with A's client id and B's secret",
    request: () => ({ method: 'POST', path: '/oauth2/token', form: { grant_type: 'client_credentials' } }),
    auth: (w) => basic(w.clientId, wb.clientSecret),
    check: expectStatus(401, 'invalid_client'),
  },
  {
    name: "createAccessToken with B's credentials naming A's client",
    request: (w) => ({
      method: 'POST',
      path: '/oauth2/token',
      form: { grant_type: 'client_credentials', client_id: w.clientId },
    }),
    auth: () => basic(wb.clientId, wb.clientSecret),
    check: expectStatus(401, 'invalid_client'),
  },
  { name: 'getHealth', request: () => ({ method: 'GET', path: '/healthz' }), check: expectStatus(200) },
  { name: 'getReadiness', request: () => ({ method: 'GET', path: '/readyz' }), check: expectStatus(200) },
];

// ---------------------------------------------------------------- the worlds

async function seedA() {
  const link = await asA(
    'mutation { createCustomCurrency(customCurrency: { customCurrencyId: "a-gold", customCode: "AGLD", name: "QZ7SECRET gold", precision: 2 }) { __typename } createCustomLink(ik: "a-link", name: "QZ7SECRET bank") { ... on CreateCustomLinkResult { link { id } } } }',
  );
  Object.assign(A, { currencyId: 'a-gold', link: link.createCustomLink.link.id, linkIk: 'a-link' });
  const accounts = await asA(
    `mutation($link: ID!) { syncCustomAccounts(link: { id: $link }, accounts: [{ externalId: "a-operating", name: "QZ7SECRET operating account" }]) {
    ... on SyncCustomAccountsResult { accounts { id } } } }`,
    { link: A.link },
  );
  Object.assign(A, {
    externalAccount: accounts.syncCustomAccounts.accounts[0].id,
    externalAccountExternalId: 'a-operating',
  });
  const txs = await asA(
    `mutation($link: ID!, $txs: [CustomTxInput!]!) { syncCustomTxs(link: { id: $link }, txs: $txs) { ... on SyncCustomTxsResult { txs { id } } } }`,
    {
      link: A.link,
      txs: [
        {
          externalId: 'a-wire-in',
          account: { id: A.externalAccount },
          amount: '2500',
          description: 'QZ7SECRET wire in',
          posted: '2026-02-03T14:30:00Z',
        },
        {
          externalId: 'a-fee',
          account: { id: A.externalAccount },
          amount: '-40',
          description: 'QZ7SECRET bank fee',
          posted: '2026-02-04T08:00:00Z',
        },
      ],
    },
  );
  Object.assign(A, {
    reconciledTx: txs.syncCustomTxs.txs[0].id,
    reconciledTxExternalId: 'a-wire-in',
    openTx: txs.syncCustomTxs.txs[1].id,
    openTxExternalId: 'a-fee',
  });

  // A schema with typed entries, a template account and a payment type; stored twice (two versions).
  const chart = (extra: unknown[]) => ({
    accounts: [
      { key: 'cash', name: 'QZ7SECRET cash', type: 'asset' },
      {
        key: 'users',
        name: 'QZ7SECRET users',
        type: 'liability',
        template: true,
        children: [{ key: 'available', name: 'QZ7SECRET available' }],
      },
      { key: 'income', name: 'QZ7SECRET income', type: 'income' },
      ...extra,
    ],
  });
  const schema = (extra: unknown[]) => ({
    key: 'a-schema',
    name: 'QZ7SECRET schema',
    chartOfAccounts: chart(extra),
    ledgerEntries: {
      types: [
        {
          type: 'a_deposit',
          description: 'QZ7SECRET deposit for {{user}}',
          lines: [
            { key: 'in', account: { path: 'cash' }, amount: '{{amount}}' },
            { key: 'owed', account: { path: 'users:{{user}}/available' }, amount: '{{amount}}' },
          ],
        },
      ],
    },
    payments: {
      types: [
        {
          type: 'a_checkout',
          typeVersion: 1,
          status: 'active',
          payment: { amount: '{{price}}', direction: 'payin' },
          accounting: {
            processing_to_settled: {
              lines: [
                { key: 'cash', account: { path: 'cash' }, amount: '{{price}}' },
                { key: 'sale', account: { path: 'income' }, amount: '{{price}}' },
              ],
            },
          },
        },
      ],
    },
  });
  const STORE =
    'mutation($schema: SchemaInput!) { storeSchema(schema: $schema) { __typename ... on BadRequestError { code message } } }';
  await asA(STORE, { schema: schema([]) });
  await asA(STORE, { schema: schema([{ key: 'fees', name: 'QZ7SECRET fees', type: 'expense' }]) });
  await asA(STORE, {
    schema: {
      key: 'a-spare-schema',
      name: 'QZ7SECRET spare',
      chartOfAccounts: { accounts: [{ key: 'spare', type: 'asset' }] },
    },
  });
  Object.assign(A, { schemaKey: 'a-schema', spareSchemaKey: 'a-spare-schema' });

  const ledgers = await asA(`mutation {
    books: createLedger(ik: "a-books", ledger: { name: "QZ7SECRET books" }, schema: { key: "a-schema" }) { ... on CreateLedgerResult { ledger { id } } }
    plain: createLedger(ik: "a-plain", ledger: { name: "QZ7SECRET plain", balanceUTCOffset: "+05:30" }) { ... on CreateLedgerResult { ledger { id } } }
    gone: createLedger(ik: "a-gone", ledger: { name: "QZ7SECRET gone" }) { __typename } }`);
  await asA('mutation { deleteLedger(ledger: { ik: "a-gone" }) { __typename } }');
  Object.assign(A, {
    booksLedger: ledgers.books.ledger.id,
    booksLedgerIk: 'a-books',
    plainLedger: ledgers.plain.ledger.id,
    plainLedgerIk: 'a-plain',
    deletedLedgerIk: 'a-gone',
  });

  const created = await asA(
    `mutation($xacct: ID!) {
    many: createLedgerAccounts(ledger: { ik: "a-plain" }, ledgerAccounts: [
      { ik: "a-bank", name: "QZ7SECRET bank account", type: asset, linkedAccount: { id: $xacct } },
      { ik: "a-sales", name: "QZ7SECRET sales", type: income },
      { ik: "a-owed", name: "QZ7SECRET owed", type: liability, childLedgerAccounts: [{ ik: "a-owed-child", name: "QZ7SECRET owed child" }] },
      { ik: "a-vault", name: "QZ7SECRET vault", type: asset, currency: { code: CUSTOM, customCurrencyId: "a-gold" } },
      { ik: "a-holders", name: "QZ7SECRET holders", type: liability, currency: { code: CUSTOM, customCurrencyId: "a-gold" } }
    ]) { ... on CreateLedgerAccountsResult { ledgerAccounts { id ik path } } }
    one: createLedgerAccount(ik: "a-extra", ledger: { ik: "a-plain" }, ledgerAccount: { name: "QZ7SECRET extra", type: expense }) { ... on CreateLedgerAccountResult { ledgerAccount { id } } } }`,
    { xacct: A.externalAccount },
  );
  const byIk = new Map(
    created.many.ledgerAccounts.map((account: { ik: string; id: string; path: string }) => [account.ik, account]),
  );
  const owedChild = byIk.get('a-owed-child') as { path: string };
  Object.assign(A, {
    bankAccount: (byIk.get('a-bank') as { id: string }).id,
    bankAccountIk: 'a-bank',
    salesAccount: (byIk.get('a-sales') as { id: string }).id,
    salesAccountIk: 'a-sales',
    owedAccount: (byIk.get('a-owed') as { id: string }).id,
    owedAccountIk: 'a-owed',
    owedChildIk: 'a-owed-child',
    owedChildPath: owedChild.path,
    vaultAccount: (byIk.get('a-vault') as { id: string }).id,
    extraAccount: created.one.ledgerAccount.id,
    extraAccountIk: 'a-extra',
  });

  const POST = `mutation($ik: SafeString!, $entry: LedgerEntryInput!) { addLedgerEntry(ik: $ik, entry: $entry) {
    __typename ... on AddLedgerEntryResult { entry { id } lines { id } } ... on BadRequestError { code message } } }`;
  const entry = await asA(POST, {
    ik: 'a-entry',
    entry: {
      ledger: { ik: 'a-plain' },
      description: 'QZ7SECRET entry',
      tags: [{ key: 'a-tag', value: 'qz7secret-tag' }],
      groups: [{ key: 'a-group', value: 'a-group-1' }],
      lines: [
        { account: { path: 'a-extra' }, amount: '700' },
        { account: { path: A.owedChildPath }, amount: '700' },
      ],
    },
  });
  const gold = { code: 'CUSTOM', customCurrencyId: 'a-gold' };
  const batch = await asA(
    `mutation($entries: [AddLedgerEntryInput!]!) { addLedgerEntries(entries: $entries) { ... on AddLedgerEntriesResult { results { entry { id } } } } }`,
    {
      entries: [
        {
          ik: 'a-batch',
          entry: {
            ledger: { ik: 'a-plain' },
            description: 'QZ7SECRET gold entry',
            lines: [
              { account: { path: 'a-vault' }, amount: '90', currency: gold },
              { account: { path: 'a-holders' }, amount: '90', currency: gold },
            ],
          },
        },
        {
          ik: 'a-reversed',
          entry: {
            ledger: { ik: 'a-plain' },
            description: 'QZ7SECRET reversed entry',
            lines: [
              { account: { path: 'a-extra' }, amount: '11' },
              { account: { path: 'a-owed' }, amount: '11' },
            ],
          },
        },
      ],
    },
  );
  const reversedEntry = batch.addLedgerEntries.results[1].entry.id;
  await asA('mutation($id: ID!) { reverseLedgerEntry(id: $id) { __typename } }', { id: reversedEntry });
  const typed = await asA(POST, {
    ik: 'a-typed',
    entry: { ledger: { ik: 'a-books' }, type: 'a_deposit', parameters: { amount: '1000', user: 'a-user' } },
  });
  const reconciled = await asA(
    `mutation($entry: LedgerEntryInput!) { reconcileTx(entry: $entry) { ... on ReconcileTxResult { entry { id } lines { id } } } }`,
    {
      entry: {
        ledger: { ik: 'a-plain' },
        description: 'QZ7SECRET reconciled',
        lines: [
          { account: { path: 'a-bank' }, amount: '2500', tx: { id: A.reconciledTx } },
          { account: { path: 'a-sales' }, amount: '2500' },
        ],
      },
    },
  );
  await asA(
    'mutation { createPayment(ik: "a-pay", ledger: { ik: "a-books" }, payment: { type: "a_checkout", parameters: { price: "1200" } }) { ... on Payment { clientSecret } } }',
  );
  Object.assign(A, {
    entry: entry.addLedgerEntry.entry.id,
    entryIk: 'a-entry',
    entryLine: entry.addLedgerEntry.lines[0].id,
    groupKey: 'a-group',
    groupValue: 'a-group-1',
    batchEntryIk: 'a-batch',
    reversedEntry,
    reversedEntryIk: 'a-reversed',
    typedEntry: typed.addLedgerEntry.entry.id,
    templatePath: 'users:a-user/available',
    reconciledEntry: reconciled.reconcileTx.entry.id,
    reconciledLine: reconciled.reconcileTx.lines[0].id,
    paymentIk: 'a-pay',
  });
  const cursors = await asA(
    '{ ledgers(first: 1) { pageInfo { endCursor } } schemas(first: 1) { pageInfo { endCursor } } customCurrencies(first: 1) { pageInfo { endCursor } } }',
  );
  Object.assign(A, {
    ledgersCursor: cursors.ledgers.pageInfo.endCursor,
    schemasCursor: cursors.schemas.pageInfo.endCursor,
    currenciesCursor: cursors.customCurrencies.pageInfo.endCursor,
  });

  // Billing: a product with roles, two invoices (one updated), two flows, a reconciled and an open transaction.
  const product = await restA('POST', '/products', {
    code: 'a-prod',
    description: 'QZ7SECRET product',
    paid_by_roles: [{ name: 'a-buyer' }],
    paid_to_roles: [{ name: 'a-seller' }],
  });
  const item = (user: string, type: string, amount: string) => ({
    description: `QZ7SECRET ${type} of ${user}`,
    product_id: 'a-prod',
    type,
    user: { external_id: user },
    currency_code: 'USD',
    price: { amount },
  });
  await restA('POST', '/invoices', {
    invoice_id: 'a-inv',
    line_items: [item('a-customer', 'payin', '3000'), item('a-merchant', 'payout', '2000')],
    tags: [{ key: 'a-key', value: 'QZ7SECRET tag' }],
  });
  await restA('PATCH', '/invoices/a-inv', {
    current_invoice_version: 1,
    line_items: { create: [item('a-customer', 'payin', '500')] },
  });
  await restA('POST', '/invoices', {
    invoiceId: 'a-inv-2',
    lineItems: [
      {
        amount: '1250',
        currencyCode: 'USD',
        description: 'QZ7SECRET legacy line',
        product_id: 'a-prod',
        type: 'payin',
        user_id: 'a-customer',
      },
    ],
  });
  const flow = await restA('POST', '/payment-flows', {
    external_id: 'a-flow',
    invoice: { id: 'a-inv' },
    type: 'single_invoice_settlement',
  });
  await restA('POST', '/payment-flows', {
    external_id: 'a-flow-2',
    invoice: { external_id: 'a-inv-2' },
    type: 'single_invoice_settlement',
  });
  await restA('POST', '/transactions', {
    account: { external_id: 'a-bank-account' },
    amount: '3500',
    currency: 'USD',
    external_id: 'a-btx',
    posted: '2026-11-02T16:45:00Z',
    allocations: [{ amount: '3500', invoice_id: 'a-inv', type: 'invoice_payin', user: { external_id: 'a-customer' } }],
    tags: [{ key: 'source', value: 'QZ7SECRET feed' }],
  });
  const settled = (await restA('GET', '/transactions')).find((t: { external_id: string }) => t.external_id === 'a-btx');
  const open = await restA('POST', '/transactions', {
    account: { external_id: 'a-bank-account' },
    amount: '-2000',
    currency: 'USD',
    external_id: 'a-btx-2',
    posted: '2026-11-03T11:20:00Z',
    allocations: [],
  });
  const invoice = await restA('GET', '/invoices/a-inv');
  const flowsPage = (
    await send({ method: 'POST', path: '/payment-flows/search', body: { page_info: { limit: 1 } } }, bearer(wa.token))
  ).body;
  const paymentsPage = (
    await send({ method: 'POST', path: '/payments/search', body: { page_info: { limit: 1 } } }, bearer(wa.token))
  ).body;
  harvest([flowsPage, paymentsPage]);
  const payment = flow.payment_plan.batches[0].payments[0];
  await restA('GET', `/payments/${payment.payment_id}`);
  Object.assign(A, {
    product: product.id,
    productCode: 'a-prod',
    role: product.paid_by_roles[0].id,
    roleName: 'a-buyer',
    invoice: 'a-inv',
    otherInvoice: 'a-inv-2',
    lineItem: invoice.line_items[0].id,
    user: settled.allocations[0].user.id,
    userExternalId: 'a-customer',
    flow: flow.id,
    flowExternalId: 'a-flow',
    payment: payment.payment_id,
    flowsCursor: flowsPage.page_info.next_cursor,
    paymentsCursor: paymentsPage.page_info.next_cursor,
    billingAccount: open.account.id,
    billingAccountExternalId: 'a-bank-account',
    transactionExternalId: 'a-btx',
    clientId: wa.clientId,
  });
  for (const secret of [wa.workspaceId, wa.clientId, wa.clientSecret]) aSecrets.add(secret);
}

async function seedB() {
  const made = await asB(`mutation {
    ledger: createLedger(ik: "b-books", ledger: { name: "B books" }) { __typename }
    link: createCustomLink(ik: "b-link", name: "B bank") { ... on CreateCustomLinkResult { link { id } } } }`);
  B.link = made.link.link.id;
  const account = await asB(
    `mutation($link: ID!) { syncCustomAccounts(link: { id: $link }, accounts: [{ externalId: "b-ext", name: "B ext" }]) { ... on SyncCustomAccountsResult { accounts { id } } } }`,
    { link: B.link },
  );
  const tx = await asB(
    `mutation($link: ID!, $account: ID!) { syncCustomTxs(link: { id: $link }, txs: [{ externalId: "b-tx", account: { id: $account }, amount: "-40", description: "B fee", posted: "2026-02-04T08:00:00Z" }]) {
    ... on SyncCustomTxsResult { txs { id } } } }`,
    { link: B.link, account: account.syncCustomAccounts.accounts[0].id },
  );
  B.tx = tx.syncCustomTxs.txs[0].id;
  await asB(
    `mutation($xacct: ID!) { createLedgerAccounts(ledger: { ik: "b-books" }, ledgerAccounts: [
    { ik: "b-cash", name: "B cash", type: asset }, { ik: "b-owed", name: "B owed", type: liability }, { ik: "b-sales", name: "B sales", type: income },
    { ik: "b-bank", name: "B bank", type: asset, linkedAccount: { id: $xacct } },
    { ik: "b-multi", name: "B multi", type: asset, currencyMode: multi }, { ik: "b-multi-owed", name: "B multi owed", type: liability, currencyMode: multi }]) { __typename } }`,
    { xacct: account.syncCustomAccounts.accounts[0].id },
  );
  const entry = await asB(`mutation { addLedgerEntry(ik: "b-entry", entry: { ledger: { ik: "b-books" }, lines: [
    { account: { path: "b-cash" }, amount: "3" }, { account: { path: "b-owed" }, amount: "3" }] }) { ... on AddLedgerEntryResult { entry { id } } } }`);
  B.entry = entry.addLedgerEntry.entry.id;

  const call = async (method: string, path: string, body?: unknown) => {
    const answer = await send({ method, path, body }, bearer(wb.token));
    if (answer.status >= 300)
      throw new Error(`B's seeding failed: ${method} ${path} answered ${answer.status} ${answer.text}`);
    return answer.body.data;
  };
  await call('POST', '/products', { code: 'b-prod', description: 'B product', paid_by_roles: [{ name: 'b-buyer' }] });
  await call('POST', '/invoices', { invoice_id: 'b-inv', line_items: [line({ external_id: 'b-customer' })] });
  await call(
    'POST',
    '/transactions',
    bankTx('b-btx', {
      allocations: [{ amount: '100', invoice_id: 'b-inv', type: 'invoice_payin', user: { external_id: 'b-customer' } }],
    }),
  );
  await call('POST', '/invoices', { invoice_id: 'b-inv-open', line_items: [line({ external_id: 'b-customer' })] });
  const flow = await call('POST', '/payment-flows', {
    external_id: 'b-flow',
    invoice: { id: 'b-inv-open' },
    type: 'single_invoice_settlement',
  });
  B.flow = flow.id;
  B.payment = flow.payment_plan.batches[0].payments[0].payment_id;
}

/** A value for each of A's identifiers that never existed: same shape, so it passes the same validation. */
function buildGhost() {
  let n = 0;
  for (const [name, value] of Object.entries(A)) {
    n += 1;
    const tag = String(n).padStart(3, '0');
    const id = /^([a-z]+(?:_[a-z]+)*)_[0-9a-hjkmnp-tv-z]{26}$/.exec(value);
    GHOST[name] = id ? `${id[1]}_${'0'.repeat(22)}g${tag}` : `ghost-k${tag}x`;
  }
}

/** Everything of A's, as A reads it: must be the same before and after B's calls. */
async function snapshotOfA() {
  const ledger: Record<string, unknown> = await asA(`{
    workspace { id name }
    ledgers(first: 10) { nodes { id ik name balanceUTCOffset schema { key version { version } } } }
    schemas(first: 10) { nodes { key name versions(first: 10) { nodes { version } } ledgers(first: 10) { nodes { ik } } } }
    links { nodes { id name externalAccounts { nodes { id externalId name txs(first: 10) { nodes { id externalId description amount isDeleted ledgerEntryIds } } } } } }
    customCurrencies(first: 10) { nodes { customCurrencyId customCode name precision } }
  }`);
  for (const ik of [A.plainLedgerIk, A.booksLedgerIk]) {
    ledger[ik] = await asA(
      `query($ik: SafeString!) { ledger(ledger: { ik: $ik }) {
      ledgerAccounts(first: 20) { nodes { id ik path name type consistencyConfig { ownBalanceUpdates } linkedAccount { id } balances(first: 5) { nodes { amount currency { code customCurrencyId } } } } }
      ledgerEntries(first: 20, filter: { showHidden: true }) { nodes { id ik description isReversed tags { key value } groups { key value } lines { nodes { id amount tags { key value } } } } }
      ledgerEntryGroups(first: 10) { nodes { key value } } } }`,
      { ik },
    );
  }
  const billing: Record<string, unknown> = {};
  for (const path of [
    '/products',
    '/invoices',
    '/invoices/a-inv',
    '/invoices/a-inv/history',
    '/invoices/a-inv-2',
    '/transactions',
    `/payment-flows/${A.flow}`,
    `/payments/${A.payment}`,
  ]) {
    billing[path] = await restA('GET', path);
  }
  billing.flows = await restA('POST', '/payment-flows/search', { page_info: { limit: 200 } });
  billing.payments = await restA('POST', '/payments/search', { page_info: { limit: 200 } });
  billing.allocations = await restA('POST', '/transactions/allocations/search', {
    filter: { invoice_id: { any: ['a-inv', 'a-inv-2'] } },
  });
  return { ledger, billing };
}

// ---------------------------------------------------------------- the test

let before: unknown;
const spec = loadSpec();
let router: OpenAPI31Backend;

beforeAll(async () => {
  server = await startTestServer();
  wa = await server.workspace('Workspace A');
  wb = await server.workspace('Workspace B');
  await seedA();
  await seedB();
  buildGhost();
  for (const testCase of GRAPHQL_CASES) testCase.query = withFragments(testCase.query.replaceAll('@B_LINK@', B.link));
  before = await snapshotOfA();
  router = new OpenAPI31Backend({ definition: structuredClone(spec), validate: true });
  await router.init();
});
afterAll(() => server?.close());

/** Runs a case with A's identifiers and with their ghosts: the two answers must not differ. */
async function twice(run: (w: World) => Promise<{ answer: Answer; sent: string }>) {
  const real = await run(A);
  expectNothingOfA(real.answer, real.sent);
  const ghost = await run(GHOST);
  expectNothingOfA(ghost.answer, ghost.sent);
  if (real.sent !== ghost.sent) expect(comparable(ghost.answer, ghostToReal())).toEqual(comparable(real.answer));
  return real.answer;
}

describe("workspace B, with A's identifiers", () => {
  it('covers every root field of the served GraphQL schema', async () => {
    const served = buildSchema(await (await fetch(`${server.baseUrl}/schema.graphql`)).text());
    const expected = [served.getQueryType()!, served.getMutationType()!].flatMap((type) =>
      Object.keys(type.getFields()).map((field) => `${type.name}.${field}`),
    );
    const covered = new Set(
      GRAPHQL_CASES.flatMap((testCase) =>
        parse(testCase.query)
          .definitions.filter(
            (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
          )
          .flatMap((operation) =>
            operation.selectionSet.selections.flatMap((selection) =>
              selection.kind === Kind.FIELD && selection.name.value !== '__typename'
                ? [`${operation.operation === OperationTypeNode.QUERY ? 'Query' : 'Mutation'}.${selection.name.value}`]
                : [],
            ),
          ),
      ),
    );
    expect([...covered].sort()).toEqual(expected.sort());
  });

  it('covers every operation of the REST contract', () => {
    const expected = Object.values(spec.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).flatMap((operation) =>
        operation?.operationId ? [operation.operationId] : [],
      ),
    );
    const covered = new Set(REST_CASES.map((testCase) => operationOf(testCase.request(A))));
    expect([...covered].sort()).toEqual([...new Set(expected)].sort());
  });

  it.each(GRAPHQL_CASES.map((testCase) => [testCase.name, testCase] as const))(
    'GraphQL: %s',
    async (_name, testCase) => {
      const answer = await twice(async (w) => {
        const variables = testCase.variables?.(w) ?? {};
        const response = await gql(server.baseUrl, wb.token, testCase.query, variables);
        return {
          answer: { status: response.status, body: response.body, text: JSON.stringify(response.body) },
          sent: JSON.stringify(variables),
        };
      });
      expect(answer.status).toBe(200);
      testCase.check(answer.body);
    },
  );

  it.each(REST_CASES.map((testCase) => [testCase.name, testCase] as const))('REST: %s', async (_name, testCase) => {
    const answer = await twice(async (w) => {
      const request = testCase.request(w);
      const auth = testCase.auth?.(w) ?? bearer(wb.token);
      const answered = await send(request, auth);
      return { answer: answered, sent: JSON.stringify([request, auth]) };
    });
    testCase.check(answer);
    const operationId = operationOf(testCase.request(A));
    const validation = router.validateResponse(answer.body, operationId, answer.status);
    expect(validation.errors ?? []).toEqual([]);
  });

  it('left every object of A as it was', async () => {
    expect(await snapshotOfA()).toEqual(before);
  });
});

/** The operation of the contract that a request reaches. */
function operationOf(request: HttpRequest): string {
  const [path, query] = request.path.split('?');
  const operation = router.matchOperation({ method: request.method, path, query: query ?? '', headers: {} });
  if (!operation?.operationId) throw new Error(`No operation of the contract serves ${request.method} ${request.path}`);
  return operation.operationId;
}

describe('without a valid token', () => {
  /** B's token with A's workspace in its payload, still under B's signature. */
  const tampered = () => {
    const [prefix, payload, signature] = wb.token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims[0] = wa.workspaceId;
    return `${prefix}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
  };
  const credentials = () =>
    [
      ['no token', undefined],
      ['a garbage token', 'Bearer nonsense'],
      ['a forged token', 'Bearer tly1.eyJ4Ijp0cnVlfQ.c2lnbmF0dXJl'],
      ["B's token claiming A's workspace", bearer(tampered())],
    ] as const;

  it('answers 401 to every GraphQL document, before anything runs', async () => {
    for (const testCase of GRAPHQL_CASES) {
      for (const [label, auth] of credentials()) {
        const response = await fetch(`${server.baseUrl}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
          body: JSON.stringify({ query: testCase.query, variables: testCase.variables?.(A) ?? {} }),
        });
        const text = await response.text();
        expect([testCase.name, label, response.status], text).toEqual([testCase.name, label, 401]);
        const body = JSON.parse(text);
        expect(body.data).toBeUndefined();
        expect(body.errors.map((error: any) => error.extensions.code)).toEqual(['unauthorized']);
        expectNothingOfA({ status: response.status, body, text }, '');
      }
    }
  });

  it('answers 401 to every REST operation under both prefixes (the health probes need no token)', async () => {
    for (const testCase of REST_CASES) {
      const request = testCase.request(A);
      const operationId = operationOf(request);
      for (const prefix of ['/billing', '']) {
        for (const [label, auth] of credentials()) {
          const answer = await send(
            { ...request, prefix },
            operationId === 'createAccessToken' && auth ? auth.replace(/^Bearer /, 'Basic ') : auth,
          );
          const expected =
            operationId === 'getHealth' || operationId === 'getReadiness'
              ? [200, undefined]
              : operationId === 'createAccessToken'
                ? [401, 'invalid_client']
                : [401, 'unauthorized'];
          expect([testCase.name, prefix, label, answer.status, answer.body.code], answer.text).toEqual([
            testCase.name,
            prefix,
            label,
            ...expected,
          ]);
          expectNothingOfA(answer, '');
        }
      }
    }
  });
});
