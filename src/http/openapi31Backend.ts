import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  OpenAPIBackend,
  OpenAPIValidator,
  type Context,
  type Document,
  type Operation,
  type Options,
  type Request,
} from 'openapi-backend';
import { DomainError } from '../core/errors.js';
import type { AppContext } from './context.js';
import { methodNotAllowed } from './errors.js';
import { decodablePath } from './requestChecks.js';

/**
 * openapi-backend checks documents against the OpenAPI 3.0 meta-schema and validates with draft-07
 * Ajv; with a 3.1 document that silently yields zero routes and ignores 2020-12 keywords. This
 * subclass validates with Ajv 2020-12 (all errors, formats) and leaves spec linting to Spectral.
 * It also routes once: openapi-backend's router rebuilds the list of every operation (lodash) and a
 * RegExp per operation on each request, a third of the server's CPU on a REST read.
 */
export class OpenAPI31Backend extends OpenAPIBackend<Document> {
  /** Whether requests are validated; the validator is built in init() (see there). */
  private readonly validatesRequests: boolean;

  constructor(options: Options<Document>) {
    super({
      ...options,
      validate: false,
      customizeAjv: (_draft07, ajvOptions) => {
        const ajv = new Ajv2020({ ...ajvOptions, strict: false, allErrors: true });
        addFormats.default(ajv);
        return ajv;
      },
    });
    this.validatesRequests = options.validate !== false;
  }

  override validateDefinition(): Document {
    return this.definition;
  }

  /**
   * Hands a Koa request to the contract's routing, security and validation, as `path` (the
   * request's path without the API's prefix); a path that is not valid percent-encoding is refused first.
   */
  async serve(ctx: AppContext, path: string): Promise<void> {
    if (!decodablePath(path)) {
      throw new DomainError('invalid_request', 'The path is not valid percent-encoding.', {
        violations: [{ pointer: '/path', message: 'must be valid percent-encoded UTF-8' }],
      });
    }
    await this.handleRequest(
      {
        method: ctx.method,
        path,
        query: ctx.query as Record<string, string>,
        headers: ctx.headers as Record<string, string>,
        body: ctx.request.body,
      },
      ctx,
    );
  }

  /** The answers to a path the contract lacks (404 route_not_found) and to a method it lacks there (405, with Allow). */
  routingRefusals() {
    return {
      notFound: () => {
        throw new DomainError('route_not_found', 'No such route.');
      },
      methodNotAllowed: (c: Context, ctx: AppContext) => {
        ctx.set('Allow', this.allowedMethods(c.request.path).join(', '));
        throw methodNotAllowed();
      },
    };
  }

  /** The methods the contract serves on this path, for the Allow header of a 405. */
  allowedMethods(path: string): string[] {
    return METHODS.filter((method) => this.matchOperation({ method, path, headers: {} }));
  }

  override async init(): Promise<this> {
    await super.init();
    compileRouter(this.router);
    compileRequestParsing(this.router);
    if (this.validatesRequests) {
      // openapi-backend compiles the response validators of every operation up front too; the
      // server never checks its own answers (tests do, compiling on demand), and those took
      // about 45 MB of heap at start. Request validators are compiled up front as before.
      this.validator = new OpenAPIValidator<Document>({
        definition: this.definition,
        ajvOpts: this.ajvOpts,
        customizeAjv: this.customizeAjv,
        router: this.router,
        lazyCompileValidators: true,
      });
      this.validator.preCompileRequestValidators();
      this.validate = true;
    }
    return this;
  }
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

type Router = OpenAPIBackend<Document>['router'];
type ParsedRequest = ReturnType<Router['parseRequest']>;
type Query = Record<string, string | string[]>;
type CompiledRoute = { operation: Operation<Document>; pattern: RegExp; specificity: number };

/**
 * Replaces the router's per-request work with tables built once from the (unchanging) definition,
 * keeping its answers: an exact path first, then templates by specificity (literal length), the
 * first with the request's method; `404-notFound` when no path matches, `405-methodNotAllowed`
 * when one does with another method.
 */
function compileRouter(router: Router): void {
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

  router.getOperations = () => operations;
  router.getOperation = (operationId: string) => byId.get(operationId);
  router.matchOperation = ((request: Request, strict?: boolean) => {
    const normalized = router.normalizeRequest(request);
    if (!normalized.path.startsWith(router.apiRoot)) return notFound(strict);
    const path = router.normalizePath(normalized.path);
    const found = exact.get(`${normalized.method} ${path}`);
    if (found) return found;
    const matching = routes.filter((route) => route.pattern.test(path));
    if (matching.length === 0) return notFound(strict);
    const match = matching.find((route) => route.operation.method === normalized.method);
    if (match) return match.operation;
    if (strict) throw Error('405-methodNotAllowed: this method is not registered for the route');
    return undefined;
  }) as Router['matchOperation'];
}

function notFound(strict: boolean | undefined): undefined {
  if (strict) throw Error('404-notFound: no route matches request');
  return undefined;
}

/**
 * openapi-backend parses a request three times on its way to the handler (before routing, after,
 * and again to validate), each time compiling the operation's path template into RegExps and
 * deep-copying headers and query with lodash. This gives the same answer from a template compiled
 * once, for the requests the contract serves: a query object (Koa's), no cookies, no styled or
 * JSON-encoded query parameters. Anything else goes to openapi-backend's own parser.
 */
function compileRequestParsing(router: Router): void {
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

function copyQuery(query: Query): Query {
  const copy: Query = {};
  for (const [name, value] of Object.entries(query)) copy[name] = Array.isArray(value) ? [...value] : value;
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
