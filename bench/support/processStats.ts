import fs from 'node:fs';

// What a benchmark reads about the processes it measures, from /proc (Linux).

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of a process's main thread alone. In Node that is the event loop, which runs every
 * request's JavaScript one after another: when it is always busy, the server can go no faster.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);
}

function statCpuSeconds(file: string): number {
  // The command name in parentheses may hold spaces and parentheses itself: the fields follow the last ')'.
  const text = fs.readFileSync(file, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of a process, in MiB. */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Idle (idle + iowait) and total jiffies of the whole machine so far. */
export function machineTimes(): { idle: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { idle: fields[3] + fields[4], total: fields.reduce((sum, value) => sum + value, 0) };
}

/** Busy jiffies (1/100 s of one core) of the whole machine since `before`. */
export function busyJiffiesSince(before: { idle: number; total: number }): number {
  const now = machineTimes();
  return now.total - now.idle - (before.total - before.idle);
}

/** The share of the machine's CPU time that was idle since `before`, in percent. */
export function idlePercentSince(before: { idle: number; total: number }): number {
  const now = machineTimes();
  return Math.round(((now.idle - before.idle) / (now.total - before.total)) * 100);
}
