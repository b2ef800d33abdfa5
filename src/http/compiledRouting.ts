import type { Document, OpenAPIBackend, Operation, Request } from 'openapi-backend';

// Routing and request parsing built once from the (unchanging) contract, in place of
// openapi-backend's per-request work: it rebuilds the list of every operation (lodash) and a
// RegExp per operation on each request, a third of the server's CPU on a REST read.

type Router = OpenAPIBackend<Document>['router'];
type ParsedRequest = ReturnType<Router['parseRequest']>;
type Query = Record<string, string | string[]>;
type CompiledRoute = { operation: Operation<Document>; pattern: RegExp; specificity: number };

/** Where a request goes: its operation, or why none (no path matches; the path matches with other methods). */
export type Route = { operation: Operation<Document> } | { refused: 'notFound' | 'methodNotAllowed' };

/**
 * Replaces the router's lookups with tables, keeping its answers: an exact path first, then
 * templates by specificity (literal length), the first with the request's method. Answers the
 * compiled lookup itself, which says why a request has no operation without throwing.
 */
export function compileRouter(router: Router): (request: Request) => Route {
  const operations = router.getOperations();
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const exact = new Map(operations.map((operation) => [`${operation.method} ${operation.path}`, operation]));
  const routes: CompiledRoute[] = operations
    .map((operation) => ({
      operation,
      pattern: new RegExp(`^${operation.path.replace(/\{.*?\}/g, '[^/]+')}$`),
      specificity: operation.path.replace(/\{.*?\}/g, '').length,
    }))
    .sort((a, b) => b.specificity - a.specificity); // stable: equal ones keep the definition's order

  const routeOf = (request: Request): Route => {
    const normalized = router.normalizeRequest(request);
    if (!normalized.path.startsWith(router.apiRoot)) return { refused: 'notFound' };
    const path = router.normalizePath(normalized.path);
    const found = exact.get(`${normalized.method} ${path}`);
    if (found) return { operation: found };
    const matching = routes.filter((route) => route.pattern.test(path));
    if (matching.length === 0) return { refused: 'notFound' };
    const match = matching.find((route) => route.operation.method === normalized.method);
    return match ? { operation: match.operation } : { refused: 'methodNotAllowed' };
  };

  // openapi-backend's normalizePath compiles a RegExp of the API root on every call.
  const apiRootPrefix = new RegExp(`^${router.apiRoot}/?`);
  const ignoreTrailingSlashes = Reflect.get(router, 'ignoreTrailingSlashes') === true; // private in its types
  router.normalizePath = (input: string) => {
    let path = input.trim();
    if (path.startsWith(router.apiRoot)) path = path.replace(apiRootPrefix, '/');
    while (ignoreTrailingSlashes && path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    return path;
  };
  router.getOperations = () => operations;
  router.getOperation = (operationId: string) => byId.get(operationId);
  // openapi-backend's contract: undefined, or with `strict` an Error whose message starts with 404 or 405.
  router.matchOperation = ((request: Request, strict?: boolean) => {
    const route = routeOf(request);
    if ('operation' in route) return route.operation;
    if (!strict) return undefined;
    throw routingError(route.refused);
  }) as Router['matchOperation'];
  return routeOf;
}

/** openapi-backend's error for a request no operation takes: its message starts with 404 or 405. */
export function routingError(refused: 'notFound' | 'methodNotAllowed'): Error {
  return Error(
    refused === 'notFound'
      ? '404-notFound: no route matches request'
      : '405-methodNotAllowed: this method is not registered for the route',
  );
}

/**
 * openapi-backend parses a request three times on its way to the handler (before routing, after,
 * and again to validate), each time compiling the operation's path template into RegExps and
 * deep-copying headers and query with lodash. This gives the same answer from a template compiled
 * once, for the requests the contract serves: a query object (Koa's), no cookies, no styled or
 * JSON-encoded query parameters. Anything else goes to openapi-backend's own parser.
 */
export function compileRequestParsing(router: Router): void {
  const general = router.parseRequest.bind(router);
  const pathParams = new Map<string, (path: string) => Record<string, string> | undefined>();
  for (const operation of router.getOperations()) {
    if (
      operation.parameters?.some(
        (parameter) =>
          '$ref' in parameter || (parameter.in === 'query' && (parameter.content || parameter.explode === false)),
      )
    )
      continue;
    pathParams.set(operation.operationId!, templateParser(operation.path));
  }
  router.parseRequest = (request, operation) => {
    const params = operation ? pathParams.get(operation.operationId!) : () => ({});
    if (!params || request.headers.cookie !== undefined || typeof request.query !== 'object') {
      return general(request, operation);
    }
    const normalized = router.normalizeRequest(request);
    const parsed: ParsedRequest = {
      ...normalized,
      params: operation ? (params(router.normalizePath(normalized.path)) ?? {}) : {},
      headers: lowerCaseKeys(request.headers),
      query: copyQuery(request.query),
      cookies: {},
      requestBody: parsedBody(request.body),
    };
    return parsed;
  };
}

/** A path template's parameters, as openapi-backend reads them: each segment percent-decoded. */
function templateParser(template: string): (path: string) => Record<string, string> | undefined {
  const names = [...template.matchAll(/\{([A-Za-z0-9_-]+)\}/g)].map((match) => match[1]);
  const pattern = new RegExp(`^${template.replace(/\{[A-Za-z0-9_-]+\}/g, '([^\\/]*)')}$`);
  return (path) => {
    const match = pattern.exec(path);
    if (!match) return undefined;
    const params: Record<string, string> = {};
    try {
      names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1])));
    } catch {
      return undefined;
    }
    return params;
  };
}

/** Node gives header names in lower case already; a copy is made only for a request built otherwise. */
function lowerCaseKeys(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const keys = Object.keys(headers);
  if (keys.every((key) => key === key.toLowerCase())) return { ...headers };
  return Object.fromEntries(keys.map((key) => [key.toLowerCase(), headers[key]]));
}

/** A copy validation may coerce in place without touching the original: arrays and objects copied too. */
export function copyQuery(query: Query): Query {
  const copy: Query = {};
  for (const [name, value] of Object.entries(query)) {
    copy[name] = Array.isArray(value) ? [...value] : typeof value === 'object' ? structuredClone(value) : value;
  }
  return copy;
}

/** A body that is not an object yet is parsed as JSON if it is JSON (openapi-backend's rule). */
function parsedBody(body: unknown): unknown {
  if (!body || typeof body === 'object') return body;
  try {
    return JSON.parse((body as string | number | boolean).toString()) as unknown;
  } catch {
    return body;
  }
}
