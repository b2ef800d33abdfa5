import { getOperationAST, Kind, parse, validate, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { Middleware } from 'koa';
import type { AppState } from '../http/context.js';
import { injectedError, runWithFault, type RequestFaults } from './faultInjection.js';
import type { WorkspaceGate } from './workspaceGate.js';

// Codes a GraphQL server answers at the HTTP level, as it answers overload; any other injected
// error is answered by the matched field, in the GraphQL result.
const HTTP_LEVEL = new Set(['too_many_requests', 'service_unavailable']);

/**
 * The sandbox's part in /graphql, after authentication: the workspace's gate (requests wait while
 * the admin API rewrites the workspace), its clock and balance lag for the resolvers, and its
 * faults. A fault's operation is named by the root fields of the request's document, parsed and
 * validated here only when a fault could apply (the endpoint parses again from its cache); a
 * document that does not parse or validate meets no fault and gets the endpoint's own answer.
 */
export function graphqlSandbox(
  sandbox: {
    gate: WorkspaceGate;
    faults: RequestFaults;
    balancesLag: (workspaceId: string) => boolean;
    now: (workspaceId: string) => Date | undefined;
  },
  schema: GraphQLSchema,
): Middleware<AppState> {
  const { faults } = sandbox;
  return async (ctx, next) => {
    const workspaceId = ctx.state.caller!.workspaceId;
    const release = await sandbox.gate.enter(workspaceId);
    try {
      ctx.state.sandbox = { balancesLag: sandbox.balancesLag(workspaceId), now: sandbox.now(workspaceId) };
      const fields = faults.mayApply(ctx) ? rootFields(schema, ctx.request.body, ctx.query) : [];
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
    } finally {
      release();
    }
  };
}

/** The root field names of the operation a GraphQL request runs, or none if it does not parse and validate. */
function rootFields(schema: GraphQLSchema, body: unknown, query: Record<string, unknown>): string[] {
  const params = (body && typeof body === 'object' ? body : query) as { query?: unknown; operationName?: unknown };
  if (typeof params.query !== 'string') return [];
  try {
    const document = parse(params.query);
    if (validate(schema, document).length > 0) return [];
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
