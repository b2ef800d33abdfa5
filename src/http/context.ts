import type { Context, ParameterizedContext } from 'koa';

export type Caller = { workspaceId: string; clientId: string };

/** What earlier middleware leaves on `ctx.state` for later middleware and handlers. */
export type AppState = {
  requestId: string;
  caller?: Caller;
};

export type AppContext = ParameterizedContext<AppState, Context>;
