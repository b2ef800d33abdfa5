import http, { type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { answerMalformedRequests } from './clientErrors.js';

// The HTTP server is bound before anything else happens at start, so a second Tally on a busy
// port stops at once having created and changed nothing; until the app is ready it answers a
// retryable 503.

/** The port is taken (or not ours to take): a one-line refusal, not a stack trace. */
export class PortUnavailableError extends Error {}

export type ListenerTimeouts = {
  /** Idle time after which a keep-alive connection is closed (announced in `Keep-Alive: timeout=`). */
  keepAliveTimeoutMs: number;
  /** Time to receive a request's headers once it has started (a slowloris guard). */
  headersTimeoutMs: number;
  /** Time to receive a whole request once it has started. */
  requestTimeoutMs: number;
};

const STARTING = { code: 'service_unavailable', message: 'Tally is starting; retry shortly.', retryable: true };
// Each endpoint's own error shape: GraphQL clients read `errors[].extensions.code`.
const STARTING_REST = JSON.stringify(STARTING);
const STARTING_GRAPHQL = JSON.stringify({
  errors: [{ message: STARTING.message, extensions: { code: STARTING.code, retryable: true } }],
});

const answerStarting: RequestListener = (request, response) => {
  response.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': '1',
    'x-should-retry': 'true',
  });
  response.end(/^\/graphql(\?|$)/.test(request.url ?? '') ? STARTING_GRAPHQL : STARTING_REST);
};

export async function bindListener(port: number, host: string, timeouts: ListenerTimeouts): Promise<Server> {
  const server = http.createServer(answerStarting);
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  answerMalformedRequests(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve).once('error', (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE')
        reject(
          new PortUnavailableError(
            `Port ${port} is in use (${where}): another Tally or another server listens there. Stop it, or set PORT to a free port.`,
          ),
        );
      else if (error.code === 'EACCES')
        reject(
          new PortUnavailableError(
            `Port ${port} may not be opened by this user (${where}); set PORT to a port above 1023.`,
          ),
        );
      else if (error.code === 'EADDRNOTAVAIL')
        reject(
          new PortUnavailableError(
            `HOST ${host} is not an address of this machine; set HOST to one (0.0.0.0 for all).`,
          ),
        );
      else reject(error);
    });
    server.listen(port, host);
  });
  return server;
}

/** Hands every later request to the ready app. */
export function serveWith(
  server: Server,
  app: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): void {
  server.removeListener('request', answerStarting);
  // Koa's callback answers its own errors; the promise it returns has nothing left to report.
  server.on('request', (request: IncomingMessage, response: ServerResponse) => void app(request, response));
}
