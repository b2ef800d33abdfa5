import fs from 'node:fs';
import type { ErrorObject } from 'ajv';
import type { Middleware } from 'koa';
import type { Context as OperationContext, Document } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { cursorSigner } from '../core/cursors.js';
import { DomainError, type Violation } from '../core/errors.js';
import { findUnstorableText } from '../core/text.js';
import type { Sql } from '../db/sql.js';
import { bearerRefusal, callerOf, missingToken } from '../http/bearerAuth.js';
import { rejectUnreadBody } from '../http/bodies.js';
import { methodNotAllowed } from '../http/errors.js';
import { OPENAPI_PATH } from '../http/contracts.js';
import type { AppContext, AppState } from '../http/context.js';
import type { InFlightLimiter } from '../http/inFlight.js';
import type { OperationId } from './handlerTypes.js';
import { handlers } from './handlers.js';
import { OpenAPI31Backend } from './openapi31Backend.js';

const CURRENT_PREFIX = '/billing';

export type BillingApi = { middleware: Middleware<AppState>; backend: OpenAPI31Backend };

/** How the mock answers a request that passed routing, the bearer check and validation. */
export type MockAnswer = (operationId: OperationId, c: OperationContext, ctx: AppContext) => Promise<void>;

type ServerOptions = { sql: Sql; signingKey: Buffer; limiter: InFlightLimiter; mock?: undefined };
/** The mock shares routing, validation and error answers with the server; any bearer token passes. */
type MockOptions = { mock: MockAnswer };

/**
 * The REST billing API, driven by spec/billing.openapi.yaml: the spec's paths route, its security
 * schemes authenticate, its schemas validate; handlers only see valid, authenticated input.
 * Routes are served under /billing (current form) and unprefixed (earlier form).
 */
export async function createBillingApi(options: ServerOptions | MockOptions): Promise<BillingApi> {
  const backend = new OpenAPI31Backend({ definition: billingRoutesOf(loadSpec()), validate: true });

  const authenticate = (_c: OperationContext, ctx: AppContext) => {
    if (options.mock) return /^Bearer \S+$/.test(ctx.get('authorization'));
    ctx.state.caller = callerOf(ctx.get('authorization'), options.signingKey);
    return Boolean(ctx.state.caller);
  };
  backend.registerSecurityHandler('oauth2', authenticate);
  backend.registerSecurityHandler('bearerAuth', authenticate);
  backend.register({
    unauthorizedHandler: (_c: OperationContext, ctx: AppContext) => {
      // The mock takes any bearer token, so only a missing one is refused there.
      throw options.mock ? missingToken() : bearerRefusal(ctx.get('authorization'), options.signingKey);
    },
    notFound: () => {
      throw new DomainError('route_not_found', 'No such route.');
    },
    methodNotAllowed: (c: OperationContext, ctx: AppContext) => {
      ctx.set('Allow', allowedMethods(backend, c.request.path).join(', '));
      throw methodNotAllowed();
    },
    validationFail: (c: OperationContext, ctx: AppContext) => {
      ctx.state.operation = c.operation?.operationId;
      const errors = closestAlternatives(c.validation.errors ?? []);
      const violations = errors.map(toViolation);
      const substantive = errors.filter((error) => !COMBINATORS.has(error.keyword));
      if (substantive.length > 0 && substantive.every(isMalformedAmount)) {
        throw new DomainError('invalid_amount', 'Amounts are integer strings in the smallest currency unit.', {
          violations,
        });
      }
      throw new DomainError('invalid_request', 'The request does not match the API contract.', { violations });
    },
    // Runs once the route is known and the caller checked: only then do body problems count.
    postSecurityHandler: (c: OperationContext, ctx: AppContext) => {
      if (!c.security?.authorized) return;
      if (!options.mock) options.limiter.admit(ctx);
      if (hasUnreadableBody(ctx)) {
        throw new DomainError(
          'unsupported_media_type',
          'Request bodies must be JSON (Content-Type: application/json).',
        );
      }
      rejectUnreadBody(ctx);
      rejectUnstorableText(c);
    },
  });
  if (options.mock) {
    const answer = options.mock;
    for (const operationId of billingOperationIds())
      backend.register(operationId, (c: OperationContext, ctx: AppContext) => answer(operationId, c, ctx));
  } else {
    registerHandlers(backend, options);
  }
  await backend.init();

  const middleware: Middleware<AppState> = async (ctx) => {
    const path =
      ctx.path === CURRENT_PREFIX
        ? '/'
        : ctx.path.startsWith(`${CURRENT_PREFIX}/`)
          ? ctx.path.slice(CURRENT_PREFIX.length)
          : ctx.path;
    if (!decodable(path)) {
      throw new DomainError('invalid_request', 'The path is not valid percent-encoding.', {
        violations: [{ pointer: '/path', message: 'must be valid percent-encoded UTF-8' }],
      });
    }
    await backend.handleRequest(
      {
        method: ctx.method,
        path,
        query: ctx.query as Record<string, string>,
        headers: ctx.headers as Record<string, string>,
        body: ctx.request.body,
      },
      ctx,
    );
  };
  return { middleware, backend };
}

/** The real handlers: validated, authenticated input in, a typed reply out. */
function registerHandlers(backend: OpenAPI31Backend, options: ServerOptions): void {
  const cursors = cursorSigner(options.signingKey);
  for (const [operationId, handler] of Object.entries(handlers)) {
    backend.register(operationId, async (c: OperationContext, ctx: AppContext) => {
      ctx.state.operation = operationId;
      // openapi-backend has validated these against the operation; the handler's own types say what they hold.
      const { requestBody, params, query } = c.request as { requestBody: unknown; params: unknown; query: unknown };
      const reply = await (handler as (input: unknown) => Promise<{ status: number; body: unknown }>)({
        body: requestBody,
        path: params,
        query,
        caller: ctx.state.caller,
        sql: options.sql,
        cursors,
      });
      ctx.status = reply.status;
      ctx.body = reply.body;
    });
  }
}

export function loadSpec(): Document {
  return parseYaml(fs.readFileSync(OPENAPI_PATH, 'utf8')) as Document;
}

/** Routes the server answers itself (token, health: `x-tally-outside-billing`) are not billing routes. */
export const isOutsideBilling = (item: unknown) =>
  (item as Record<string, unknown>)['x-tally-outside-billing'] === true;

function billingRoutesOf(spec: Document): Document {
  const paths = Object.fromEntries(Object.entries(spec.paths ?? {}).filter(([, item]) => !isOutsideBilling(item)));
  return { ...spec, paths } as Document;
}

/** The operationIds the billing spec declares (token and health routes excluded). */
export function billingOperationIds(): OperationId[] {
  const ids: OperationId[] = [];
  for (const item of Object.values(billingRoutesOf(loadSpec()).paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { operationId?: string }>)) {
      if (operation?.operationId) ids.push(operation.operationId as OperationId);
    }
  }
  return ids;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods the contract serves on this path, for the Allow header of a 405. */
function allowedMethods(backend: OpenAPI31Backend, path: string): string[] {
  return METHODS.filter((method) => backend.matchOperation({ method, path, headers: {} }));
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** NUL and unpaired surrogates are refused in every text the request carries, before any handler. */
function rejectUnstorableText(c: OperationContext): void {
  const violation =
    findUnstorableText(c.request.requestBody, '/body') ??
    findUnstorableText(c.request.params, '/path') ??
    findUnstorableText(c.request.query, '/query');
  if (violation) {
    throw new DomainError('invalid_request', 'Text must be valid Unicode without NUL characters.', {
      violations: [violation],
    });
  }
}

function hasUnreadableBody(ctx: AppContext): boolean {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));
  return hasBody && ['POST', 'PATCH', 'PUT'].includes(ctx.method) && !ctx.is('application/json');
}

const COMBINATORS = new Set(['oneOf', 'anyOf']);

/**
 * For a oneOf/anyOf that failed, Ajv reports the errors of every alternative; a current-form
 * invoice would be told it lacks `invoiceId`. Keep only the alternative the request came closest
 * to (fewest errors), so the violations describe what the caller meant to send.
 */
function closestAlternatives(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  const settled = new Set<ErrorObject>();
  for (const summary of errors.filter((error) => COMBINATORS.has(error.keyword))) {
    const prefix = `${summary.schemaPath}/`;
    const branches = new Map<string, number>();
    for (const error of kept) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split('/')[0];
      branches.set(branch, (branches.get(branch) ?? 0) + 1);
    }
    if (branches.size < 2) continue;
    const ranked = [...branches.entries()].sort((a, b) => a[1] - b[1]);
    const [closest] = ranked[0];
    kept = kept.filter(
      (error) => !error.schemaPath.startsWith(prefix) || error.schemaPath.startsWith(`${prefix}${closest}/`),
    );
    // A body form clearly meant (the contract reports violations against that form only): the
    // summary adds nothing. Nested choices such as a user {id} | {external_id} keep theirs.
    if (ranked[0][1] < ranked[1][1] && /^(\/requestBody)?$/.test(summary.instancePath)) settled.add(summary);
  }
  return kept.filter((error) => !settled.has(error));
}

// Money fields of the contract, by property name: all of them are integer strings.
const AMOUNT_FIELDS = new Set(['amount', 'unit_price', 'new_amount', 'old_amount']);

/** The contract's `invalid_amount`: a money field that is not an integer string. */
function isMalformedAmount(error: ErrorObject): boolean {
  const field = error.instancePath.split('/').pop() ?? '';
  return AMOUNT_FIELDS.has(field) && ['type', 'pattern', 'maxLength', 'minLength'].includes(error.keyword);
}

/** An Ajv error as a JSON pointer into the request (`/body/...`, `/query/...`, `/path/...`). */
function toViolation(error: ErrorObject): Violation {
  let pointer = error.instancePath.replace(/^\/requestBody/, '/body');
  if (error.keyword === 'required') pointer += `/${escapePointer(String(error.params.missingProperty))}`;
  if (error.keyword === 'additionalProperties') pointer += `/${escapePointer(String(error.params.additionalProperty))}`;
  if (error.keyword === 'parse') pointer = '/body';
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') message = 'is not a known property';
  if (
    error.keyword === 'enum' &&
    Array.isArray(error.params.allowedValues) &&
    error.params.allowedValues.length <= 10
  ) {
    message = `must be one of: ${error.params.allowedValues.join(', ')}`;
  }
  return { pointer: pointer || '/', message };
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
