import fs from 'node:fs';
import type { ErrorObject } from 'ajv';
import type { Middleware } from 'koa';
import type { Context as OperationContext, Document } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { cursorSigner } from '../core/cursors.js';
import { DomainError } from '../core/errors.js';
import type { Sql } from '../db/sql.js';
import { bearerRefusal, callerOf, missingToken, type BearerTokens } from '../http/bearerAuth.js';
import { contractViolations, isCombinator } from '../http/contractViolations.js';
import { rejectBadBody } from '../http/requestChecks.js';
import { OPENAPI_PATH } from '../http/contracts.js';
import type { AppContext, AppState } from '../http/context.js';
import type { InFlightLimiter } from '../http/inFlight.js';
import type { OperationId } from './handlerTypes.js';
import { handlers } from './handlers.js';
import type { GroupCommitOptions } from '../db/groupCommit.js';
import { billingWrites } from './writeGroups.js';
import { OpenAPI31Backend } from '../http/openapi31Backend.js';

const CURRENT_PREFIX = '/billing';

export type BillingApi = { middleware: Middleware<AppState>; backend: OpenAPI31Backend };

/** How the mock answers a request that passed routing, the bearer check and validation. */
export type MockAnswer = (operationId: OperationId, c: OperationContext, ctx: AppContext) => Promise<void>;

type ServerOptions = {
  sql: Sql;
  tokens: BearerTokens;
  limiter: InFlightLimiter;
  /** The sandbox's hold on each request (its gate and injected faults), once operation and caller are known. */
  aroundRequest?: (ctx: AppContext, operationId: string, work: () => Promise<void>) => Promise<void>;
  /** Group commit of transaction syncs and invoice creates; default: DEFAULT_BILLING_GROUPS. */
  writeGroups?: GroupCommitOptions;
  mock?: undefined;
};
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
    ctx.state.caller = callerOf(ctx.get('authorization'), options.tokens);
    return Boolean(ctx.state.caller);
  };
  backend.registerSecurityHandler('oauth2', authenticate);
  backend.registerSecurityHandler('bearerAuth', authenticate);
  backend.register({
    unauthorizedHandler: (_c: OperationContext, ctx: AppContext) => {
      // The mock takes any bearer token, so only a missing one is refused there.
      throw options.mock ? missingToken() : bearerRefusal(ctx.get('authorization'), options.tokens);
    },
    ...backend.routingRefusals(),
    validationFail: (c: OperationContext, ctx: AppContext) => {
      ctx.state.operation = c.operation?.operationId;
      const { errors, violations } = contractViolations(c.validation.errors ?? []);
      const substantive = errors.filter((error) => !isCombinator(error));
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
      rejectBadBody(c, ctx);
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
    await backend.serve(ctx, path);
  };
  return { middleware, backend };
}

/** The real handlers: validated, authenticated input in, a typed reply out. */
function registerHandlers(backend: OpenAPI31Backend, options: ServerOptions): void {
  const cursors = cursorSigner(options.tokens.signingKey);
  const writes = billingWrites(options.sql, options.writeGroups);
  for (const [operationId, handler] of Object.entries(handlers)) {
    const serve = async (c: OperationContext, ctx: AppContext) => {
      // openapi-backend has validated these against the operation; the handler's own types say what they hold.
      const { requestBody, params, query } = c.request as { requestBody: unknown; params: unknown; query: unknown };
      const reply = await (handler as (input: unknown) => Promise<{ status: number; body: unknown }>)({
        body: requestBody,
        path: params,
        query,
        caller: ctx.state.caller,
        sql: options.sql,
        writes,
        cursors,
      });
      ctx.status = reply.status;
      ctx.body = reply.body;
    };
    const { aroundRequest } = options;
    backend.register(operationId, async (c: OperationContext, ctx: AppContext) => {
      ctx.state.operation = operationId;
      if (!aroundRequest) return serve(c, ctx);
      await aroundRequest(ctx, operationId, () => serve(c, ctx));
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

// Money fields of the contract, by property name: all of them are integer strings.
const AMOUNT_FIELDS = new Set(['amount', 'unit_price', 'new_amount', 'old_amount']);

/** The contract's `invalid_amount`: a money field that is not an integer string. */
function isMalformedAmount(error: ErrorObject): boolean {
  const field = error.instancePath.split('/').pop() ?? '';
  return AMOUNT_FIELDS.has(field) && ['type', 'pattern', 'maxLength', 'minLength'].includes(error.keyword);
}
