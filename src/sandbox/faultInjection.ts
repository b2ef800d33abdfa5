import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import { parse as parseYaml } from 'yaml';
import { DomainError, type ErrorCode } from '../core/errors.js';
import type { AppContext } from '../http/context.js';
import { SANDBOX_OPENAPI_PATH } from '../http/contracts.js';
import type { GqlContext } from '../ledger/context.js';
import { checkCode, type Fault, type FaultRules } from './faults.js';

export const FAULT_HEADER = 'x-tally-fault';

/**
 * Where requests meet their faults: REST handlers and the GraphQL endpoint call `faultFor` once
 * they know the caller and the operation, then `runWithFault` around their work.
 */
export type RequestFaults = {
  /** Whether the request could meet a fault at all (a header, or rules of its workspace): cheap, asked first. */
  mayApply(ctx: AppContext): boolean;
  /** The request's fault: its X-Tally-Fault header's, else its workspace's first matching rule's. */
  faultFor(ctx: AppContext, operations: readonly string[]): { fault: Fault; operation: string } | undefined;
};

export function requestFaults(rules: FaultRules): RequestFaults {
  const validHeader = headerValidator();
  return {
    mayApply: (ctx) =>
      Boolean(ctx.get(FAULT_HEADER)) || (ctx.state.caller !== undefined && rules.active(ctx.state.caller.workspaceId)),
    faultFor(ctx, operations) {
      const header = ctx.get(FAULT_HEADER);
      if (header) return { fault: validHeader(header), operation: '*' };
      const workspaceId = ctx.state.caller?.workspaceId;
      if (!workspaceId || !rules.active(workspaceId)) return undefined;
      return rules.take(workspaceId, operations);
    },
  };
}

/**
 * Runs the request's work as its fault says: after a delay, not at all (an error, or a dropped
 * connection), or with the answer lost after the work committed.
 */
export async function runWithFault(
  ctx: AppContext,
  fault: Fault | undefined,
  work: () => Promise<void>,
): Promise<void> {
  if (!fault) return work();
  switch (fault.type) {
    case 'latency':
      await sleep(fault.ms);
      return work();
    case 'error':
      throw injectedError(fault);
    case 'drop':
      if (fault.when === 'after_commit') await work();
      dropConnection(ctx);
  }
}

export function injectedError(fault: Fault & { type: 'error' }): DomainError {
  // checkCode admitted the code when the rule or header was read.
  const error = new DomainError(fault.code as ErrorCode, `Injected by the sandbox: ${fault.code}.`);
  if (fault.retry_after_seconds !== undefined) error.retryAfterSeconds = fault.retry_after_seconds;
  return error;
}

/** Closes the socket with no answer: the client sees a reset connection, as after a crash. */
function dropConnection(ctx: AppContext): void {
  ctx.respond = false;
  ctx.req.socket.destroy();
}

/**
 * Makes the root fields of the ledger schema answer a FieldFault left on the request's context:
 * a mutation with its union's BadRequestError or InternalError, a query by failing the field.
 * Used only when the sandbox is on; the schema is the app's own copy.
 */
export function answerFieldFaults(schema: GraphQLSchema): GraphQLSchema {
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    if (!root) continue;
    const isMutation = root === schema.getMutationType();
    for (const field of Object.values(root.getFields())) {
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context: GqlContext, info) => {
        const injected = context.sandbox?.fieldFault;
        if (!injected || injected.field !== info.fieldName) return resolve(source, args, context, info);
        context.sandbox!.fieldFault = undefined; // one field of the request answers it
        const { code, message, retryable, status } = injected.error;
        if (isMutation)
          return { __typename: status < 500 ? 'BadRequestError' : 'InternalError', code, message, retryable };
        throw injected.error;
      };
    }
  }
  return schema;
}

/** The header's value as a Fault, checked against the contract's Fault schema. */
function headerValidator(): (header: string) => Fault {
  const spec = parseYaml(fs.readFileSync(SANDBOX_OPENAPI_PATH, 'utf8')) as object;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  ajv.addSchema(spec, 'sandbox');
  const validate = ajv.compile<Fault>({ $ref: 'sandbox#/components/schemas/Fault' });
  const pointer = `/header/${FAULT_HEADER}`;
  return (header) => {
    let value: unknown;
    try {
      value = JSON.parse(header);
    } catch {
      value = undefined;
    }
    if (!validate(value)) {
      const problem = value === undefined ? 'must be JSON' : (validate.errors?.[0]?.message ?? 'is invalid');
      throw new DomainError('invalid_request', `${FAULT_HEADER} must be the JSON of a sandbox Fault.`, {
        violations: [{ pointer, message: problem }],
      });
    }
    checkCode(value, pointer);
    return value;
  };
}
