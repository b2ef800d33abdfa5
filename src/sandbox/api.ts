import { timingSafeEqual, createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Middleware } from 'koa';
import type { Context as OperationContext, Document } from 'openapi-backend';
import { parse as parseYaml } from 'yaml';
import { DomainError } from '../core/errors.js';
import type { AppContext, AppState } from '../http/context.js';
import { SANDBOX_OPENAPI_PATH } from '../http/contracts.js';
import { contractViolations } from '../http/contractViolations.js';
import { OpenAPI31Backend } from '../http/openapi31Backend.js';
import { rejectBadBody } from '../http/requestChecks.js';
import type { SandboxOperationId } from './handlerTypes.js';
import { sandboxHandlers } from './handlers.js';
import type { FaultRules } from './faults.js';
import type { SandboxStore } from './store.js';

export const SANDBOX_PREFIX = '/sandbox';

export type SandboxApiOptions = { store: SandboxStore; faults: FaultRules; adminToken: string };

/**
 * The sandbox admin API, driven by spec/sandbox.openapi.yaml as the billing API is by its own:
 * the contract routes and validates, the admin token authenticates, handlers see valid input only.
 * Answers the paths under /sandbox and passes every other request on.
 */
export async function createSandboxApi(options: SandboxApiOptions): Promise<Middleware<AppState>> {
  const definition = parseYaml(fs.readFileSync(SANDBOX_OPENAPI_PATH, 'utf8')) as Document;
  const backend = new OpenAPI31Backend({ definition, validate: true });
  const isAdmin = adminTokenCheck(options.adminToken);

  backend.registerSecurityHandler('adminToken', (_c: OperationContext, ctx: AppContext) =>
    isAdmin(ctx.get('authorization')),
  );
  backend.register({
    unauthorizedHandler: () => {
      throw new DomainError(
        'unauthorized',
        'The sandbox admin API takes the admin token: Authorization: Bearer <TALLY_ADMIN_TOKEN>.',
      );
    },
    ...backend.routingRefusals(),
    validationFail: (c: OperationContext, ctx: AppContext) => {
      ctx.state.operation = c.operation?.operationId;
      const { violations } = contractViolations(c.validation.errors ?? []);
      throw new DomainError('invalid_request', 'The request does not match the API contract.', { violations });
    },
    postSecurityHandler: (c: OperationContext, ctx: AppContext) => {
      if (!c.security?.authorized) return;
      rejectBadBody(c, ctx);
    },
  });
  for (const [operationId, handler] of Object.entries(sandboxHandlers)) {
    backend.register(operationId, async (c: OperationContext, ctx: AppContext) => {
      ctx.state.operation = operationId;
      // Validated against the operation by openapi-backend; the handler's types say what they hold.
      const { requestBody, params } = c.request as { requestBody: unknown; params: unknown };
      const run = handler as (input: unknown) => Promise<{ status: number; body: unknown }>;
      const reply = await run({ body: requestBody, path: params, store: options.store, faults: options.faults });
      ctx.status = reply.status;
      ctx.body = reply.body;
    });
  }
  await backend.init();

  return async (ctx, next) => {
    if (ctx.path !== SANDBOX_PREFIX && !ctx.path.startsWith(`${SANDBOX_PREFIX}/`)) {
      await next();
      return;
    }
    await backend.serve(ctx, ctx.path.slice(SANDBOX_PREFIX.length) || '/');
  };
}

export const sandboxOperationIds = (): SandboxOperationId[] => Object.keys(sandboxHandlers) as SandboxOperationId[];

/** Compares digests, so the check takes the same time whatever the sent value and its length. */
function adminTokenCheck(adminToken: string): (authorization: string | undefined) => boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = digest(adminToken);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]), expected);
  };
}
