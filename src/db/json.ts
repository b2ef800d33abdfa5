import type postgres from 'postgres';
import type { Db } from './sql.js';

/**
 * A value that JSON.stringify writes as it is: what Tally sends to jsonb columns and parameters.
 * No bigint, Date, symbol or function: money goes as decimal text, instants as ISO text.
 * Optional (undefined) properties are allowed; JSON.stringify leaves them out.
 */
export type Json = null | string | number | boolean | readonly Json[] | { readonly [key: string]: Json | undefined };

/** The jsonb parameter for `value`: every jsonb value Tally sends goes through here, type-checked as Json. */
export function jsonb(db: Db, value: Json): postgres.Parameter {
  return db.json(value);
}

/**
 * A value a GraphQL JSON scalar parsed (ledger/graphql scalars: a request body or a literal, numbers
 * made decimal text) is JSON by construction; the generated argument types only say unknown.
 */
export function parsedJson(value: Readonly<Record<string, unknown>>): Json {
  // The one narrowing in Tally from unknown to Json: the scalar that produced `value` admits nothing else.
  return value as Json;
}

/** What a jsonb column gives back for `value`: undefined properties gone, as after a round trip. */
export function asStored<T extends Json>(value: T): T {
  const stored: unknown = JSON.parse(JSON.stringify(value));
  // JSON of a Json value reads back as the same shape, minus properties that were undefined.
  return stored as T;
}
