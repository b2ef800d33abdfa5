import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlainJson, readPlainJson } from '../../src/http/plainJsonBody.js';

// The lean reader on real sockets: what the server reads, as JSON, or the status of its refusal.

const LIMIT = 64;
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    readPlainJson(req, LIMIT).then(
      (body) => res.end(JSON.stringify({ body })),
      (error: Error & { status: number }) =>
        res.end(JSON.stringify({ status: error.status, syntax: error instanceof SyntaxError })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Sends the raw request, optionally in several writes, and answers the server's JSON reply. */
async function send(head: string, ...parts: (string | Buffer)[]): Promise<unknown> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${head}\r\n`);
  for (const part of parts) {
    socket.write(part);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const reply = await new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8'))).on('close', () => resolve(text));
  });
  return JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''));
}

const sized = (body: string | Buffer) => `Content-Length: ${Buffer.byteLength(body)}\r\n`;

describe('readPlainJson', () => {
  it('parses objects and arrays, whitespace and a byte order mark before them, and answers {} for no body', async () => {
    expect(await send(sized('{"a":"1"}'), '{"a":"1"}')).toEqual({ body: { a: '1' } });
    expect(await send(sized(' \n\t[1]'), ' \n\t[1]')).toEqual({ body: [1] });
    expect(await send(sized('\uFEFF{"b":2}'), '\uFEFF{"b":2}')).toEqual({ body: { b: 2 } });
    expect(await send('Content-Length: 0\r\n')).toEqual({ body: {} });
  });

  it('decodes a character whose bytes arrive in two chunks', async () => {
    const bytes = Buffer.from('{"name":"€ and 🎉"}', 'utf8');
    const cut = bytes.indexOf(0xe2) + 1;
    expect(await send(sized(bytes), bytes.subarray(0, cut), bytes.subarray(cut))).toEqual({
      body: { name: '€ and 🎉' },
    });
  });

  it('reads a chunked body without Content-Length', async () => {
    expect(await send('Transfer-Encoding: chunked\r\n', '5\r\n{"c":\r\n', '2\r\n3}\r\n', '0\r\n\r\n')).toEqual({
      body: { c: 3 },
    });
  });

  it('refuses scalars, malformed JSON and prototype keys as a SyntaxError with status 400', async () => {
    for (const body of ['"text"', '12', '{"a":', '{"__proto__":{"admin":true}}', '{"a":[{"__proto__":{}}]}']) {
      expect(await send(sized(body), body), body).toEqual({ status: 400, syntax: true });
    }
  });

  it('refuses a body past the limit with 413, declared or streamed', async () => {
    const big = `{"a":"${'x'.repeat(LIMIT)}"}`;
    expect(await send(sized(big), big)).toEqual({ status: 413, syntax: false });
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    expect(
      await send('Transfer-Encoding: chunked\r\n', chunk(big.slice(0, 40)), chunk(big.slice(40)), '0\r\n\r\n'),
    ).toEqual({ status: 413, syntax: false });
  });
});

describe('readPlainJson on a request whose client left', () => {
  it('answers 400 at once, read before or while the client goes', async () => {
    const outcomes: Promise<unknown>[] = [];
    const late = http.createServer((req) => {
      const outcome = (started: Promise<void>) =>
        started
          .then(() => readPlainJson(req, LIMIT))
          .then(
            () => 'read',
            (error: Error & { status: number }) => error.status,
          );
      // One request is read only once its client is gone, the other while it goes.
      outcomes.push(
        outcome(req.url === '/after' ? new Promise((resolve) => req.once('close', resolve)) : Promise.resolve()),
      );
    });
    await new Promise<void>((resolve) => late.listen(0, '127.0.0.1', resolve));
    for (const path of ['/after', '/during']) {
      const socket = net.connect((late.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"a":`,
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await Promise.all(outcomes)).toEqual([400, 400]);
    late.close();
  });
});

describe('isPlainJson', () => {
  const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

  it('takes application/json in UTF-8, not compressed', () => {
    expect(isPlainJson(request({ 'content-type': 'application/json' }))).toBe(true);
    expect(isPlainJson(request({ 'content-type': 'Application/JSON; charset=UTF-8' }))).toBe(true);
    expect(isPlainJson(request({ 'content-type': 'application/json', 'content-encoding': 'identity' }))).toBe(true);
  });

  it('leaves every other body to the general parser', () => {
    expect(isPlainJson(request({}))).toBe(false);
    expect(isPlainJson(request({ 'content-type': 'application/json; charset=latin1' }))).toBe(false);
    expect(isPlainJson(request({ 'content-type': 'application/vnd.api+json' }))).toBe(false);
    expect(isPlainJson(request({ 'content-type': 'application/x-www-form-urlencoded' }))).toBe(false);
    expect(isPlainJson(request({ 'content-type': 'application/json', 'content-encoding': 'gzip' }))).toBe(false);
  });
});
