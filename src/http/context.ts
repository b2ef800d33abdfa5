import type { Context, ParameterizedContext } from 'koa';

export type Caller = { workspaceId: string; clientId: string };

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
};

export type AppContext = ParameterizedContext<AppState, Context>;
