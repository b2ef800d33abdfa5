import autocannon from 'autocannon';
import { cpuSeconds, machineTimes, mainThreadCpuSeconds, rssMiB } from './processStats.js';

// Closed-loop HTTP load with autocannon: `clients` keep-alive connections, each sending its next
// request as soon as the previous answer is in, for `seconds`. autocannon writes prebuilt request
// bytes on raw sockets: Node's own HTTP client cost twice the server's CPU per request and was the
// bound of every cheap case on 2 cores. Besides rate and latency, the machine's CPU per request is
// split into the measured server, this load generator and the rest (PostgreSQL).

export type Request = {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: string;
  /** Told the status and body of this request's answer (a case that keeps state, or judges success by the body). */
  answered?: (status: number, body: string) => void;
};

export type LoadFigures = {
  requestsPerSecond: number;
  /** How long the load ran, as autocannon measured it. */
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Answers by status when some were not the expected one, for the log. */
  statuses?: string;
  serverCpuUsPerRequest: number;
  /** Of it, the server's main thread (its event loop), and the share of the run that thread was on a core. */
  serverMainThreadCpuUsPerRequest: number;
  serverMainThreadBusyPercent: number;
  loadCpuUsPerRequest: number;
  /** Busy CPU of the machine outside the server and the load generator: PostgreSQL, mostly. */
  restCpuUsPerRequest: number;
  /** Share of the machine's CPU time that was idle during the run (every core): room the load left unused. */
  machineIdlePercent: number;
  serverRssMiB: number;
};

export type Load = {
  baseUrl: string;
  headers: Record<string, string>;
  clients: number;
  seconds: number;
  serverPid: number;
  next: () => Request;
  okStatus: number;
  /** Requests per second across all clients; default: as fast as answers come (closed loop). */
  rate?: number;
  /** Whether requests carry `answered` (then autocannon keeps each answer's body, which costs CPU). */
  readsAnswers?: boolean;
};

type Context = { answered?: Request['answered'] };

export async function runLoad(load: Load): Promise<LoadFigures> {
  let rss = 0;
  const sampler = setInterval(() => (rss = Math.max(rss, rssMiB(load.serverPid))), 500);
  const serverBefore = cpuSeconds(load.serverPid);
  const mainThreadBefore = mainThreadCpuSeconds(load.serverPid);
  const loadBefore = process.cpuUsage();
  const machineBefore = machineTimes();
  const result = await autocannon({
    url: load.baseUrl,
    connections: load.clients,
    duration: load.seconds,
    ...(load.rate ? { overallRate: load.rate } : {}),
    headers: load.headers,
    requests: [
      {
        setupRequest: (request, context: Context) => {
          const next = load.next();
          context.answered = next.answered;
          return { ...request, method: next.method, path: next.path, body: next.body };
        },
        ...(load.readsAnswers
          ? { onResponse: (status: number, body: string, context: Context) => context.answered?.(status, body) }
          : {}),
      },
    ],
  });
  clearInterval(sampler);

  const serverCpu = cpuSeconds(load.serverPid) - serverBefore;
  const mainThreadCpu = mainThreadCpuSeconds(load.serverPid) - mainThreadBefore;
  const loadUsage = process.cpuUsage(loadBefore);
  const loadCpu = (loadUsage.user + loadUsage.system) / 1e6;
  const machine = machineTimes();
  // Jiffies are 1/100 s on Linux: the machine's busy jiffies over the run, as CPU seconds.
  const busyCpu = (machine.total - machine.idle - (machineBefore.total - machineBefore.idle)) / 100;
  const requests = result.requests.total;
  const perRequest = (cpu: number) => Math.round((cpu / Math.max(1, requests)) * 1e6);
  const succeeded = Number(result.statusCodeStats?.[`${load.okStatus}`]?.count ?? 0);
  const errors = requests - succeeded;
  return {
    requestsPerSecond: Math.round(succeeded / result.duration),
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors,
    ...(errors ? { statuses: JSON.stringify(result.statusCodeStats) } : {}),
    serverCpuUsPerRequest: perRequest(serverCpu),
    serverMainThreadCpuUsPerRequest: perRequest(mainThreadCpu),
    serverMainThreadBusyPercent: Math.round((mainThreadCpu / result.duration) * 100),
    loadCpuUsPerRequest: perRequest(loadCpu),
    restCpuUsPerRequest: perRequest(Math.max(0, busyCpu - serverCpu - loadCpu)),
    machineIdlePercent: Math.round(
      ((machine.idle - machineBefore.idle) / Math.max(1, machine.total - machineBefore.total)) * 100,
    ),
    serverRssMiB: rss,
  };
}
