import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Operation, type Options, type Request } from 'openapi-backend';

/**
 * openapi-backend checks documents against the OpenAPI 3.0 meta-schema and validates with draft-07
 * Ajv; with a 3.1 document that silently yields zero routes and ignores 2020-12 keywords. This
 * subclass validates with Ajv 2020-12 (all errors, formats) and leaves spec linting to Spectral.
 * It also routes once: openapi-backend's router rebuilds the list of every operation (lodash) and a
 * RegExp per operation on each request, a third of the server's CPU on a REST read.
 */
export class OpenAPI31Backend extends OpenAPIBackend<Document> {
  constructor(options: Options<Document>) {
    super({
      ...options,
      customizeAjv: (_draft07, ajvOptions) => {
        const ajv = new Ajv2020({ ...ajvOptions, strict: false, allErrors: true });
        addFormats.default(ajv);
        return ajv;
      },
    });
  }

  override validateDefinition(): Document {
    return this.definition;
  }

  override async init(): Promise<this> {
    await super.init();
    compileRouter(this.router);
    return this;
  }
}

type Router = OpenAPIBackend<Document>['router'];
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
