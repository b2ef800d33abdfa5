// Stateless GraphQL mock of the ledger API, generated from spec/ledger.graphql.
//
// For frontend developers: every operation of the contract is answered with realistic-looking
// random data, and every mutation answers with its success member (the `...Result` type, or
// `Payment` for createPayment), never with an error. Nothing is stored: mutations do not change
// what queries return.
//
//   POST /graphql          GraphQL over HTTP (graphql-http)
//   GET  /schema.graphql   the SDL, verbatim
//
// Environment: MOCK_GRAPHQL_PORT (default 4011). Listens on 127.0.0.1 only.

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { buildSchema, isInterfaceType, isObjectType, isUnionType, type GraphQLSchema } from 'graphql';
import { addMocksToSchema, type IMocks } from '@graphql-tools/mock';
import { createHandler } from 'graphql-http/lib/use/http';

const HOST = '127.0.0.1';
const DEFAULT_PORT = 4011;

const sdlUrl = new URL('../../spec/ledger.graphql', import.meta.url);

/** Values for the custom scalars, in the wire formats the contract describes. */
const scalarMocks: IMocks = {
  AlphaNumericString: () => 'abc123',
  Date: () => '2026-01-15',
  DateTime: () => '2026-01-15T12:00:00.000Z',
  FirstMoment: () => '2026-01',
  Int64: () => '42',
  Int96: () => '12500',
  JSON: () => ({}),
  JSONObject: () => ({}),
  LastMoment: () => '2026-01',
  ParameterizedString: () => '{{amount}}',
  Parameters: () => ({}),
  Period: () => '2026-01',
  PeriodFilter: () => '2026-01',
  SafeString: () => 'example-key',
  UTCOffset: () => '+00:00',
};

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** A service-style id: prefix, `_`, 26 lowercase Crockford base32 characters. */
function fakeId(prefix: string): string {
  let body = '';
  for (let i = 0; i < 26; i++) body += CROCKFORD[Math.floor(Math.random() * CROCKFORD.length)];
  return `${prefix}_${body}`;
}

/** A few object mocks so that common screens look plausible. */
const objectMocks: IMocks = {
  Workspace: () => ({ id: fakeId('ws'), name: 'Mock workspace' }),
  Ledger: () => ({ id: fakeId('led'), ik: 'main-ledger', name: 'Main ledger', type: 'double' }),
  LedgerAccount: () => ({ id: fakeId('acct'), path: 'assets/bank', name: 'Bank', type: 'asset' }),
  LedgerEntry: () => ({ id: fakeId('ent'), ik: 'entry-1', description: 'Funding', hidden: false }),
  LedgerLine: () => ({ id: fakeId('line'), description: 'Funding' }),
  Currency: () => ({ code: 'USD', name: 'United States dollar', precision: 2, customCode: null, customCurrencyId: null }),
  PageInfo: () => ({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }),
};

/**
 * For every mutation response union (`XResponse = XResult | BadRequestError | InternalError`),
 * the member that does not implement `Error`: the success type.
 */
function successMembers(schema: GraphQLSchema): Map<string, string> {
  const errorInterface = schema.getType('Error');
  const result = new Map<string, string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isUnionType(type) || !type.name.endsWith('Response')) continue;
    const success = type
      .getTypes()
      .filter((member) => !(isInterfaceType(errorInterface) && member.getInterfaces().includes(errorInterface)));
    if (success.length !== 1) {
      throw new Error(`union ${type.name} must have exactly one non-error member, found ${success.length}`);
    }
    result.set(type.name, success[0].name);
  }
  return result;
}

/** Builds the executable mock schema from the SDL. */
export function buildMockSchema(sdl: string): GraphQLSchema {
  const schema = buildSchema(sdl);
  const mocks: IMocks = { ...scalarMocks, ...objectMocks };
  // Type resolution of the response unions: always the success member. With
  // @graphql-tools/mock the concrete type of an abstract field is chosen by the `__typename`
  // of the abstract type's mock.
  for (const [unionName, memberName] of successMembers(schema)) {
    mocks[unionName] = { __typename: () => memberName };
    // A first call, not a replay; deletions succeed.
    const member = schema.getType(memberName);
    if (isObjectType(member)) {
      const fields = member.getFields();
      const fixed: Record<string, unknown> = {};
      if (fields.isIkReplay) fixed.isIkReplay = false;
      if (fields.success) fixed.success = true;
      if (Object.keys(fixed).length > 0) mocks[memberName] = () => fixed;
    }
  }
  // Links resolve to the kind frontends create themselves.
  if (isInterfaceType(schema.getType('Link')) && isObjectType(schema.getType('CustomLink'))) {
    mocks.Link = { __typename: () => 'CustomLink' };
  }
  return addMocksToSchema({ schema, mocks });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function createMockServer(sdl: string) {
  const schema = buildMockSchema(sdl);
  const graphqlHandler = createHandler({ schema });

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/graphql') {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        sendJson(res, 405, { code: 'method_not_allowed', message: 'use POST /graphql', retryable: false });
        return;
      }
      graphqlHandler(req, res).catch((err: unknown) => {
        console.error('ledger mock: request failed', err);
        if (!res.headersSent) {
          sendJson(res, 500, { code: 'internal_error', message: 'mock failed to answer', retryable: false });
        } else {
          res.end();
        }
      });
      return;
    }
    if (path === '/schema.graphql' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(sdl) });
      res.end(req.method === 'HEAD' ? undefined : sdl);
      return;
    }
    sendJson(res, 404, { code: 'route_not_found', message: `no route ${req.method} ${path}`, retryable: false });
  });
}

function main(): void {
  const portText = process.env.MOCK_GRAPHQL_PORT ?? String(DEFAULT_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`ledger mock: MOCK_GRAPHQL_PORT must be a port number, got "${portText}"`);
    process.exit(1);
  }

  const server = createMockServer(readFileSync(sdlUrl, 'utf8'));
  server.listen(port, HOST, () => {
    console.log(`ledger GraphQL mock listening on http://${HOST}:${port}/graphql (SDL at /schema.graphql)`);
  });

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.close(() => process.exit(0));
    server.closeAllConnections();
    // Do not hang on a stuck connection.
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main();
}
