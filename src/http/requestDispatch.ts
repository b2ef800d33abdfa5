import type { ErrorObject } from 'ajv';
import type {
  Context,
  Document,
  OpenAPIBackend,
  Operation,
  ParsedRequest,
  Request,
  ValidationResult,
} from 'openapi-backend';
import { copyQuery, routingError, type Route } from './compiledRouting.js';

// openapi-backend's handleRequest, for the hooks Tally registers, without its per-request
// overhead: four parses of the request, lodash over parameters and security requirements, and a
// promise per security handler and hook even when they answer synchronously. Same handlers, same
// order, same context: test/unit/request-dispatch.test.ts compares the two on every operation.

type Backend = OpenAPIBackend<Document>;
/** A parsed request as the contract's parameters come: text, or lists of text in the query. */
type Parsed = ParsedRequest<
  unknown,
  Record<string, string>,
  Record<string, string | string[]>,
  Record<string, string | string[] | undefined>,
  Record<string, string>
>;

/** Hooks the lean path does not run: a backend with any of them, or coercing types, takes openapi-backend's own path. */
const UNSUPPORTED_HOOKS = ['preRoutingHandler', 'postRoutingHandler', 'preOperationHandler', 'postResponseHandler'];

export function dispatchesLean(backend: Backend): boolean {
  return !backend.validator?.coerceTypes && UNSUPPORTED_HOOKS.every((hook) => !backend.handlers[hook]);
}

export async function dispatchRequest(
  backend: Backend,
  routeOf: (request: Request) => Route,
  request: Request,
  handlerArgs: unknown[],
): Promise<unknown> {
  const { handlers, router } = backend;
  const context = { api: backend } as Context;
  const route = routeOf(request);
  if (!('operation' in route)) {
    context.request = router.parseRequest(request) as Parsed;
    const notFound = handlers['404'] ?? handlers.notFound;
    const refusal =
      route.refused === 'methodNotAllowed' ? (handlers['405'] ?? handlers.methodNotAllowed ?? notFound) : notFound;
    if (!refusal) throw routingError(route.refused);
    return refusal(context, ...handlerArgs);
  }

  const { operation } = route;
  context.operation = operation;
  const parsed = router.parseRequest(request, operation) as Parsed;
  context.request = parsed;

  const requirements = operation.security ?? [];
  const results = await securityResults(backend, requirements, context, handlerArgs);
  const authorized = requirements.some((requirement) =>
    Object.keys(requirement).every((scheme) => grants(results[scheme])),
  );
  context.security = { authorized, ...results };
  const checked: unknown = handlers.postSecurityHandler?.(context, ...handlerArgs);
  if (isPromiseLike(checked)) await checked;
  if (!authorized && requirements.length > 0 && handlers.unauthorizedHandler) {
    return handlers.unauthorizedHandler(context, ...handlerArgs);
  }

  const validate =
    typeof backend.validate === 'function' ? backend.validate(context, ...handlerArgs) : backend.validate;
  if (validate) {
    context.validation = validateRequest(backend, request, operation, parsed);
    if (context.validation.errors && handlers.validationFail) return handlers.validationFail(context, ...handlerArgs);
  }

  const handler = handlers[operation.operationId!];
  if (handler) return handler(context, ...handlerArgs);
  const notImplemented = handlers['501'] ?? handlers.notImplemented;
  if (!notImplemented) throw Error(`501-notImplemented: ${operation.operationId} no handler registered`);
  return notImplemented(context, ...handlerArgs);
}

/** Each scheme's handler result, a throw or rejection kept as `{ error }`; awaited only when it is a promise. */
async function securityResults(
  backend: Backend,
  requirements: Record<string, string[]>[],
  context: Context,
  handlerArgs: unknown[],
): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const requirement of requirements) {
    for (const scheme of Object.keys(requirement)) {
      if (scheme in results) continue;
      const handler = backend.securityHandlers[scheme];
      if (!handler) {
        results[scheme] = undefined;
        continue;
      }
      try {
        const result: unknown = handler(context, ...handlerArgs);
        results[scheme] = isPromiseLike(result) ? await result : result;
      } catch (error) {
        results[scheme] = { error };
      }
    }
  }
  return results;
}

/** openapi-backend's rule: a falsy result, or an object with a truthy `error`, refuses. */
function grants(result: unknown): boolean {
  if (!result) return false;
  return !(typeof result === 'object' && (result as { error?: unknown }).error);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}

/**
 * openapi-backend's validateRequest, on copies of the parsed parameters (its validators coerce
 * them in place; the handler's stay as sent): a lone value of an array query parameter becomes
 * an array, and a body that is not JSON where only JSON is accepted is a `parse` error.
 */
function validateRequest(
  backend: Backend,
  request: Request,
  operation: Operation<Document>,
  parsed: Parsed,
): ValidationResult {
  const { requestBody } = parsed;
  const params = parsed.params && { ...parsed.params };
  const query = parsed.query && copyQuery(parsed.query);
  const headers = parsed.headers && { ...parsed.headers };
  const cookies = parsed.cookies && { ...parsed.cookies };
  if (query) {
    for (const name of arrayQueryParameters(operation)) {
      if (typeof query[name] === 'string') query[name] = [query[name]];
    }
  }
  const parameters: Record<string, unknown> = {};
  if (params != null) parameters.path = params;
  if (query != null) parameters.query = query;
  if (headers != null) parameters.header = headers;
  if (cookies != null) parameters.cookie = cookies;

  const errors: ErrorObject[] = [];
  if (typeof request.body !== 'object' && request.body !== undefined) {
    const formats = Object.keys((operation.requestBody as { content?: object } | undefined)?.content ?? {});
    if (formats.length === 1 && formats[0] === 'application/json') {
      try {
        JSON.parse(`${request.body}`);
      } catch (error) {
        errors.push({
          keyword: 'parse',
          instancePath: '',
          schemaPath: '#/requestBody',
          params: [],
          message: (error as Error).message,
        });
      }
    }
  }
  if (typeof requestBody === 'object' || headers['content-type'] === 'application/json') {
    parameters.requestBody = requestBody;
  }
  for (const validator of backend.validator.getRequestValidatorsForOperation(operation.operationId!) ?? []) {
    validator(parameters);
    if (validator.errors) errors.push(...validator.errors);
  }
  return { valid: errors.length === 0, errors: errors.length > 0 ? errors : null, coerced: { ...request } };
}

const arrayQueryCache = new WeakMap<Operation<Document>, string[]>();

/** The query parameters whose schema is an array (openapi-backend reads the first declaration of a name). */
function arrayQueryParameters(operation: Operation<Document>): string[] {
  let names = arrayQueryCache.get(operation);
  if (!names) {
    const first = new Map<string, { in?: string; schema?: { type?: unknown } }>();
    for (const parameter of (operation.parameters ?? []) as {
      name?: string;
      in?: string;
      schema?: { type?: unknown };
    }[]) {
      if (parameter.in === 'query' && parameter.name && !first.has(parameter.name))
        first.set(parameter.name, parameter);
    }
    names = [...first].filter(([, parameter]) => parameter.schema?.type === 'array').map(([name]) => name);
    arrayQueryCache.set(operation, names);
  }
  return names;
}
