import type { ClockRow } from '../db/sandbox/clocks.js';

export type ClockState = { mode: 'real' | 'frozen' | 'running'; now: Date };

type Clock = { frozen: boolean; base: number; setAt: number };

/**
 * The workspaces' clocks as this process reads them: every request of a workspace with a clock
 * asks for its now (default `posted`, balance reads without `at`, token expiry). The database
 * holds the same clocks for what SQL stamps (functions/sandbox_clock.sql).
 */
export type WorkspaceClocks = ReturnType<typeof workspaceClocks>;

export function workspaceClocks(initial: readonly ClockRow[], realNow: () => number = Date.now) {
  const clocks = new Map<string, Clock>(
    initial.map((row) => [
      row.workspaceId,
      { frozen: row.frozen, base: row.base.getTime(), setAt: row.setAt.getTime() },
    ]),
  );
  const nowOf = (clock: Clock) => (clock.frozen ? clock.base : clock.base + (realNow() - clock.setAt));

  return {
    /** The workspace's now, when it has a clock; undefined: real time. */
    now(workspaceId: string): Date | undefined {
      const clock = clocks.size > 0 ? clocks.get(workspaceId) : undefined;
      return clock && new Date(nowOf(clock));
    },
    state(workspaceId: string): ClockState {
      const clock = clocks.get(workspaceId);
      if (!clock) return { mode: 'real', now: new Date(realNow()) };
      return { mode: clock.frozen ? 'frozen' : 'running', now: new Date(nowOf(clock)) };
    },
    set(row: ClockRow): void {
      clocks.set(row.workspaceId, { frozen: row.frozen, base: row.base.getTime(), setAt: row.setAt.getTime() });
    },
    release(workspaceId: string): void {
      clocks.delete(workspaceId);
    },
  };
}

/** An ISO 8601 duration of days, hours, minutes and seconds (`P1D`, `PT1H30M`, `PT0.5S`) in ms; undefined if it is not one. */
export function durationMs(text: string): number | undefined {
  const match = /^P(?:(\d{1,6})D)?(?:T(?:(\d{1,7})H)?(?:(\d{1,9})M)?(?:(\d{1,11}(?:\.\d{1,3})?)S)?)?$/.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return undefined;
  const [, days, hours, minutes, seconds] = match;
  return (
    Number(days ?? 0) * 86_400_000 +
    Number(hours ?? 0) * 3_600_000 +
    Number(minutes ?? 0) * 60_000 +
    Math.round(Number(seconds ?? 0) * 1000)
  );
}
