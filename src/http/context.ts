import type { Context, ParameterizedContext } from 'koa';
import type { DomainError } from '../core/errors.js';

export type Caller = { workspaceId: string; clientId: string };

/** A sandbox fault one GraphQL field of the request answers in-band (sandbox/faultInjection.ts). */
export type FieldFault = { field: string; error: DomainError };

/** What the sandbox asks of a GraphQL request's resolvers. */
export type SandboxRequest = {
  fieldFault?: FieldFault;
  /** The workspace's fold is held back: eventual balance reads leave out deltas still queued. */
  balancesLag?: boolean;
  /** The workspace's clock, read once for the request; absent: real time. */
  now?: Date;
};

/** What earlier middleware leaves on `ctx.state` for later middleware and handlers. */
export type AppState = {
  requestId: string;
  caller?: Caller;
  /** Why the body could not be read; raised only once routing and authentication have passed. */
  bodyError?: unknown;
  /** Gives back the caller's in-flight slot (inFlight.ts); set once the request was admitted. */
  releaseSlot?: () => void;
  /** The operation served (a billing operationId, `graphql`, a route), for metrics. */
  operation?: string;
  /** Set by the sandbox for the GraphQL endpoint to pass to its resolvers. */
  sandbox?: SandboxRequest;
};

export type AppContext = ParameterizedContext<AppState, Context>;
