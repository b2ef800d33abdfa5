import { hash } from 'node:crypto';

/**
 * A stable hash of a request's meaningful content (keys sorted, undefined dropped): an idempotency
 * key replayed with the same fingerprint is a replay; with another, it is a different request.
 */
export function fingerprint(value: unknown): string {
  // The one-shot hash: half the time of a Hash object for a request-sized text (0.4 against 0.8 µs).
  return hash('sha256', canonicalJson(value), 'base64url');
}

/**
 * JSON with every object's keys sorted by code unit and undefined members dropped. Every request
 * with a body is hashed, so the common case copies the value with sorted keys and lets the native
 * JSON.stringify write it, byte for byte the same: 10 µs against 13.5 for a 10-item invoice body.
 */
export function canonicalJson(value: unknown): string {
  try {
    const sorted = sortedCopy(value);
    if (sorted !== INDEX_KEYS) return JSON.stringify(sorted) ?? 'null';
  } catch (error) {
    // The copy and JSON.stringify run out of stack sooner than the key-by-key writer does.
    if (!(error instanceof RangeError)) throw error;
  }
  return canonicalText(value);
}

/** Marks a value holding an object with an array-index key ("7"): engines write those first, in numeric order. */
const INDEX_KEYS: unique symbol = Symbol('index keys');
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

function startsWithDigit(key: string): boolean {
  const code = key.charCodeAt(0);
  return code >= 48 && code <= 57;
}

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i]);
      if (item === INDEX_KEYS) return INDEX_KEYS;
      copy[i] = item;
    }
    return copy;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  // Index keys come first in Object.keys, so the first key tells whether there are any.
  if (keys.length > 0 && startsWithDigit(keys[0]) && ARRAY_INDEX.test(keys[0])) return INDEX_KEYS;
  keys.sort();
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const item = object[key];
    if (item === undefined) continue;
    const sorted = sortedCopy(item);
    if (sorted === INDEX_KEYS) return INDEX_KEYS;
    // JSON.stringify would drop a member it cannot write; the canonical form writes it as null.
    const member = typeof sorted === 'function' || typeof sorted === 'symbol' ? null : sorted;
    // An assignment to "__proto__" would set the copy's prototype, not add a member.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: member, enumerable: true });
    else copy[key] = member;
  }
  return copy;
}

/** The canonical form written out key by key: the reference, and the way for objects with index keys. */
export function canonicalText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + canonicalText(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(object).sort()) {
    const item = object[key];
    if (item === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalText(item)}`;
  }
  return `${out}}`;
}
