import type { Server } from 'node:http';
import type { Socket } from 'node:net';

// Requests that are not valid HTTP never reach Koa: Node's parser refuses them and by default
// answers a bare 400 with no body. Answer them in the catalogue's shape too, then close.

const STATUS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason] = STATUS[error.code ?? ''] ?? [400, 'Bad Request'];
    const body = JSON.stringify({
      code: 'invalid_request',
      message: status === 408 ? 'The request was not received in time.' : 'The request is not valid HTTP.',
      retryable: false,
    });
    socket.end(
      [
        `HTTP/1.1 ${status} ${reason}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        'x-should-retry: false',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
