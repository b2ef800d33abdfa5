import { getOperationAST, Kind, parse, type SelectionSetNode } from 'graphql';
import type { Middleware } from 'koa';
import type { AppState } from '../http/context.js';
import { injectedError, runWithFault, type RequestFaults } from './faultInjection.js';

// Codes a GraphQL server answers at the HTTP level, as it answers overload; any other injected
// error is answered by the matched field, in the GraphQL result.
const HTTP_LEVEL = new Set(['too_many_requests', 'service_unavailable']);

/**
 * The sandbox's part in /graphql, after authentication: whether the workspace's balances lag, and
 * its faults. A fault's operation is named by the root fields of the request's document (parsed
 * here; the endpoint parses again from its cache, and answers a document that does not parse itself).
 */
export function graphqlSandbox(sandbox: {
  faults: RequestFaults;
  balancesLag: (workspaceId: string) => boolean;
  now: (workspaceId: string) => Date | undefined;
}): Middleware<AppState> {
  const { faults } = sandbox;
  return async (ctx, next) => {
    const workspaceId = ctx.state.caller?.workspaceId;
    ctx.state.sandbox =
      workspaceId === undefined ? {} : { balancesLag: sandbox.balancesLag(workspaceId), now: sandbox.now(workspaceId) };
    const fields = rootFields(ctx.request.body, ctx.query);
    const found = fields.length > 0 ? faults.faultFor(ctx, fields) : undefined;
    if (found?.fault.type === 'error' && !HTTP_LEVEL.has(found.fault.code)) {
      ctx.state.sandbox.fieldFault = {
        field: found.operation === '*' ? fields[0] : found.operation,
        error: injectedError(found.fault),
      };
      await next();
      return;
    }
    await runWithFault(ctx, found?.fault, async () => {
      await next();
    });
  };
}

/** The root field names of the operation a GraphQL request runs, or none if it does not parse. */
function rootFields(body: unknown, query: Record<string, unknown>): string[] {
  const params = (body && typeof body === 'object' ? body : query) as { query?: unknown; operationName?: unknown };
  if (typeof params.query !== 'string') return [];
  try {
    const document = parse(params.query);
    const operation = getOperationAST(
      document,
      typeof params.operationName === 'string' ? params.operationName : undefined,
    );
    if (!operation) return [];
    const fragments = new Map(
      document.definitions.flatMap((definition) =>
        definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [],
      ),
    );
    const names: string[] = [];
    const collect = (selections: SelectionSetNode, depth: number) => {
      for (const selection of selections.selections) {
        if (selection.kind === Kind.FIELD) names.push(selection.name.value);
        else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, depth);
        else if (depth < 10) {
          const spread = fragments.get(selection.name.value);
          if (spread) collect(spread, depth + 1);
        }
      }
    };
    collect(operation.selectionSet, 0);
    return names.filter((name) => !name.startsWith('__'));
  } catch {
    return [];
  }
}
