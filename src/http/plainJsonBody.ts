import type { IncomingMessage } from 'node:http';
import { parse as parseWithoutPrototypes } from '@hapi/bourne';

// The request body of nearly every API call: `application/json` (UTF-8), not compressed. Read
// here in a few lines, it costs a fraction of co-body's general path (media type matching
// against every JSON type, a decoding stream, an inflation wrapper), which stays for the rest.

const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
// Leading whitespace as RFC 8259 allows it, then an object or an array: what co-body's strict mode accepts.
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** An error with the HTTP status toDomainError reads (as raw-body's and co-body's carry). */
class BodyReadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Whether this request's body is plain JSON that readPlainJson can take. */
export function isPlainJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  const encoding = req.headers['content-encoding'];
  return (
    type !== undefined &&
    PLAIN_JSON.has(type.toLowerCase()) &&
    (encoding === undefined || encoding.toLowerCase() === 'identity')
  );
}

/**
 * The body parsed, as co-body's strict JSON parser answers it: `{}` when empty, an object or
 * an array, prototype poisoning refused. Rejects with status 413 past `limit` bytes (before
 * reading when Content-Length says so), 400 for a body cut short or malformed JSON.
 */
export function readPlainJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = req.headers['content-length'];
  const length = declared === undefined ? undefined : Number(declared);
  if (length !== undefined && length > limit) {
    req.pause();
    return Promise.reject(new BodyReadError('request entity too large', 413));
  }
  // A client gone before reading starts sends no more events: answer now, as raw-body does.
  if (req.destroyed || !req.readable) return Promise.reject(new BodyReadError('request aborted', 400));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stopListening = () =>
      req.off('data', onData).off('end', onEnd).off('aborted', onAborted).off('error', onAborted).off('close', onClose);
    const fail = (error: BodyReadError) => {
      stopListening();
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) fail(new BodyReadError('request entity too large', 413));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stopListening();
      if (length !== undefined && received !== length) {
        reject(new BodyReadError('request size did not match content length', 400));
        return;
      }
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      try {
        resolve(parseStrict(text));
      } catch (error) {
        reject(Object.assign(error as SyntaxError, { status: 400 }));
      }
    };
    const onAborted = () => fail(new BodyReadError('request aborted', 400));
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    req
      .on('data', onData)
      .once('end', onEnd)
      .once('aborted', onAborted)
      .once('error', onAborted)
      .once('close', onClose);
  });
}

function parseStrict(text: string): unknown {
  // A byte order mark is dropped, as the decoder co-body reads through drops it.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (json === '') return {};
  if (!OBJECT_OR_ARRAY.test(json)) throw new SyntaxError('invalid JSON, only supports object and array');
  return parseWithoutPrototypes(json, { protoAction: 'error' }) as unknown;
}
