import type { IncomingMessage } from 'node:http';
import { parse as parseWithoutPrototypes } from '@hapi/bourne';
import getRawBody from 'raw-body';

// The request body of nearly every API call: `application/json` (UTF-8), not compressed. Read
// with raw-body and parsed here, it skips co-body's general path (media type matching against
// every JSON type, a decoding stream, an inflation wrapper), which stays for the rest.

const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
// Leading whitespace as RFC 8259 allows it, then an object or an array: what co-body's strict mode accepts.
const OBJECT_OR_ARRAY = /^[ \t\n\r]*[[{]/;

/** An error with the HTTP status toDomainError reads, as raw-body's carry. */
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
 * an array, prototype poisoning refused. raw-body (co-body's own reader) reads the bytes, with
 * its errors: 413 past `limit` bytes (before reading when Content-Length says so), 400 for a body
 * cut short; malformed JSON is a SyntaxError with status 400.
 */
export async function readPlainJson(req: IncomingMessage, limit: number): Promise<unknown> {
  // A client gone before reading starts sends no more events (raw-body would answer 500).
  if (req.destroyed || !req.readable) throw new BodyReadError('request aborted', 400);
  const declared = req.headers['content-length'];
  const bytes = await getRawBody(req, { limit, length: declared === undefined ? null : Number(declared) });
  try {
    return parseStrict(bytes.toString('utf8'));
  } catch (error) {
    throw Object.assign(error as SyntaxError, { status: 400 });
  }
}

function parseStrict(text: string): unknown {
  // A byte order mark is dropped, as the decoder co-body reads through drops it.
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (json === '') return {};
  if (!OBJECT_OR_ARRAY.test(json)) throw new SyntaxError('invalid JSON, only supports object and array');
  return parseWithoutPrototypes(json, { protoAction: 'error' }) as unknown;
}
