import type { operations } from '../../generated/billing.js';
import type { CursorSigner } from '../core/cursors.js';
import type { Sql } from '../db/sql.js';
import type { Caller } from '../http/context.js';
import type { BillingWrites } from './writeGroups.js';
import type { PathParamsOf, QueryParamsOf, ReplyOf, RequestBodyOf } from '../http/operationTypes.js';

export type OperationId = keyof operations;

export type RequestBody<O extends OperationId> = RequestBodyOf<operations[O]>;
export type PathParams<O extends OperationId> = PathParamsOf<operations[O]>;
export type QueryParams<O extends OperationId> = QueryParamsOf<operations[O]>;
export type Reply<O extends OperationId> = ReplyOf<operations[O]>;

export type HandlerInput<O extends OperationId> = {
  body: RequestBody<O>;
  path: PathParams<O>;
  query: QueryParams<O>;
  caller: Caller;
  sql: Sql;
  /** Transaction syncs and invoice creates, written with group commit. */
  writes: BillingWrites;
  /** Signs and checks the cursors of search pages. */
  cursors: CursorSigner;
};

/** A REST handler: validated input in, a spec-typed reply out. Thin: rules in core/, storage in db/. */
export type Handler<O extends OperationId> = (input: HandlerInput<O>) => Promise<Reply<O>>;

export type HandlerTable = { [O in OperationId]?: Handler<O> };
