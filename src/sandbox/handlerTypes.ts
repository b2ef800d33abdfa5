import type { operations } from '../../generated/sandbox.js';
import type { PathParamsOf, ReplyOf, RequestBodyOf } from '../http/operationTypes.js';
import type { FaultRules } from './faults.js';
import type { SandboxStore } from './store.js';

export type SandboxOperationId = keyof operations;

export type SandboxInput<O extends SandboxOperationId> = {
  body: RequestBodyOf<operations[O]>;
  path: PathParamsOf<operations[O]>;
  store: SandboxStore;
  faults: FaultRules;
};

/** An admin handler: validated input in, a contract-typed reply out. */
export type SandboxHandler<O extends SandboxOperationId> = (input: SandboxInput<O>) => Promise<ReplyOf<operations[O]>>;

export type SandboxHandlerTable = { [O in SandboxOperationId]: SandboxHandler<O> };
