// Stateless GraphQL mock of the ledger API, generated from spec/ledger.graphql.
//
// For frontend developers: every operation of the contract is answered with realistic-looking
// random data, and every mutation answers with its success member (the `...Result` type, or
// `Payment` for createPayment), never with an error. Nothing is stored: mutations do not change
// what queries return. A bad request gets what the server answers it: the same status, and errors
// with the same `extensions.code` (the server's scalars, document limits, text checks, request
// parsing and error coding are used here as they are). No token is needed.
//
//   POST /graphql          GraphQL over HTTP (graphql-http; GET for queries, as on the server)
//   GET  /schema.graphql   the SDL, verbatim
//
// Environment: MOCK_GRAPHQL_PORT (default 4011). Listens on 127.0.0.1 only.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isInterfaceType, isObjectType, isUnionType, type GraphQLSchema } from 'graphql';
import { addMocksToSchema, type IMocks } from '@graphql-tools/mock';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { createHandler } from 'graphql-http';
import { DomainError } from '../core/errors.js';
import { loadConfig } from '../config.js';
import { createDocumentCache } from '../ledger/graphql/documentCache.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from '../ledger/graphql/documentLimits.js';
import { graphqlErrorBody, mediaTypeFor, transportErrorFor } from '../ledger/graphql/errors.js';
import { parseAndCheckParams, withCode } from '../ledger/graphql/requests.js';
import { scalarResolvers } from '../ledger/graphql/scalars.js';

const HOST = '127.0.0.1';
const DEFAULT_PORT = 4011;
/** The server's body limit (1 MiB), past which it answers 413 payload_too_large. */
const BODY_LIMIT_BYTES = 1024 * 1024;

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
  Currency: () => ({
    code: 'USD',
    name: 'United States dollar',
    precision: 2,
    customCode: null,
    customCurrencyId: null,
  }),
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

/** Builds the executable mock schema from the SDL, with the server's scalars (they check inputs). */
export function buildMockSchema(sdl: string): GraphQLSchema {
  const schema = makeExecutableSchema({ typeDefs: sdl, resolvers: scalarResolvers });
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

function sendJson(res: ServerResponse, status: number, body: unknown, type = 'application/json; charset=utf-8'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * The body as the server's body parser leaves it: a JSON body parsed (an empty one is `{}`), any
 * other body unread (graphql-http refuses its media type); malformed JSON and bodies over 1 MiB
 * are the server's typed refusals.
 */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  if (!JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) {
    req.resume();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT_BYTES) {
      req.resume();
      throw new DomainError('payload_too_large', 'The request body is larger than 1 MiB.');
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('malformed_json', 'The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null)
    throw new DomainError('malformed_json', 'The request body is not valid JSON.');
  return parsed as Record<string, unknown>;
}

export function createMockServer(sdl: string, limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS) {
  const schema = buildMockSchema(sdl);
  // The server's document handling: token, depth, alias, directive and cost limits, the text
  // rule, and __typename added to mutations, each refusal with the server's code.
  const documents = createDocumentCache({ limits });
  const handle = createHandler<IncomingMessage>({
    schema,
    parse: documents.parse,
    validate: documents.validate,
    parseRequestParams: parseAndCheckParams,
    formatError: withCode,
  });

  const answerGraphql = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const refuse = (error: DomainError, headers: Record<string, string> = {}) => {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      sendJson(res, error.status, graphqlErrorBody(error, `mock_${randomUUID()}`), mediaTypeFor(req.headers.accept));
    };
    let body: Record<string, unknown> | null;
    try {
      body = await readBody(req);
    } catch (error) {
      if (error instanceof DomainError) return refuse(error);
      throw error;
    }
    const [result, init] = await handle({
      method,
      url: req.url ?? '/graphql',
      headers: req.headers,
      body,
      raw: req,
      context: undefined,
    });
    const headers = Object.fromEntries(
      Object.entries(init.headers ?? {}).map(([name, value]) => [name, String(value)]),
    );
    const transport = transportErrorFor(init.status, method);
    if (transport) return refuse(transport, headers);
    res.writeHead(init.status, headers);
    res.end(result ?? undefined);
  };

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/graphql') {
      answerGraphql(req, res).catch((err: unknown) => {
        console.error('ledger mock: request failed', err);
        if (!res.headersSent) {
          sendJson(
            res,
            500,
            graphqlErrorBody(new DomainError('internal_error', 'The mock failed to answer.'), `mock_${randomUUID()}`),
          );
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

  // The same GRAPHQL_MAX_* limits as the server run beside it.
  const server = createMockServer(readFileSync(sdlUrl, 'utf8'), loadConfig().graphqlLimits);
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
