import type { Middleware } from 'koa';
import { DomainError } from '../core/errors.js';
import type { AppContext, AppState } from './context.js';

/**
 * Caps the requests one workspace may have in flight on this process, so a runaway client of
 * one tenant cannot take every database connection from the others. `admit` runs right after
 * authentication; `middleware` gives the slot back however the request ends.
 */
export const DEFAULT_MAX_IN_FLIGHT_PER_WORKSPACE = 64;

export type InFlightLimiter = {
  admit(ctx: AppContext): void;
  middleware: Middleware<AppState>;
  inFlight(workspaceId: string): number;
};

export function inFlightLimiter(maxPerWorkspace: number): InFlightLimiter {
  const counts = new Map<string, number>();
  return {
    admit(ctx) {
      const workspaceId = ctx.state.caller?.workspaceId;
      if (!workspaceId || ctx.state.releaseSlot) return;
      const count = counts.get(workspaceId) ?? 0;
      if (count >= maxPerWorkspace) {
        throw new DomainError(
          'too_many_requests',
          `This workspace already has ${maxPerWorkspace} requests in flight; retry shortly.`,
        );
      }
      counts.set(workspaceId, count + 1);
      ctx.state.releaseSlot = () => {
        ctx.state.releaseSlot = undefined;
        const left = (counts.get(workspaceId) ?? 1) - 1;
        if (left === 0) counts.delete(workspaceId);
        else counts.set(workspaceId, left);
      };
    },
    middleware: async (ctx, next) => {
      try {
        await next();
      } finally {
        ctx.state.releaseSlot?.();
      }
    },
    inFlight: (workspaceId) => counts.get(workspaceId) ?? 0,
  };
}
