import type { operations } from '../../generated/billing.js';
import type { CursorSigner } from '../core/cursors.js';
import type { Sql } from '../db/sql.js';
import type { Caller } from '../http/context.js';

export type OperationId = keyof operations;

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The operation's JSON body; possibly undefined when the contract makes the body optional. */
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody: infer B }
  ? Json<NonNullable<B>>
  : operations[O] extends { requestBody?: infer B }
    ? Json<NonNullable<B>> | undefined
    : never;
export type PathParams<O extends OperationId> = operations[O]['parameters'] extends { path: infer P }
  ? NonNullable<P>
  : never;
export type QueryParams<O extends OperationId> = operations[O]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;

type SuccessStatus = 200 | 201;
/** One of the success responses the spec declares for the operation, with its typed body. */
export type Reply<O extends OperationId> = {
  [S in SuccessStatus & keyof operations[O]['responses']]: { status: S; body: Json<operations[O]['responses'][S]> };
}[SuccessStatus & keyof operations[O]['responses']];

export type HandlerInput<O extends OperationId> = {
  body: RequestBody<O>;
  path: PathParams<O>;
  query: QueryParams<O>;
  caller: Caller;
  sql: Sql;
  /** Signs and checks the cursors of search pages. */
  cursors: CursorSigner;
};

/** A REST handler: validated input in, a spec-typed reply out. Thin: rules in core/, storage in db/. */
export type Handler<O extends OperationId> = (input: HandlerInput<O>) => Promise<Reply<O>>;

export type HandlerTable = { [O in OperationId]?: Handler<O> };
