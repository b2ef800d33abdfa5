import fs from 'node:fs';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';
import { publicBase, SPEC_ORIGIN } from './publicBase.js';

export const OPENAPI_PATH = new URL('../../spec/billing.openapi.yaml', import.meta.url);
export const SANDBOX_OPENAPI_PATH = new URL('../../spec/sandbox.openapi.yaml', import.meta.url);
export const SDL_PATH = new URL('../../spec/ledger.graphql', import.meta.url);

/** Serves a contract file read once at start; clients and codegen fetch them from the server. */
export function serveContract(file: URL, contentType: string): Middleware<AppState> {
  const text = fs.readFileSync(file, 'utf8');
  return (ctx) => {
    ctx.type = contentType;
    ctx.body = text;
  };
}

/**
 * Serves an OpenAPI contract (billing's by default) naming the base URL the caller reached (or PUBLIC_URL behind a
 * proxy) in `servers` and the OAuth2 token URL, so a client generated from it points here.
 * A Host header that is not a plain host[:port] falls back to the file's own URLs.
 */
export function serveOpenApi(publicUrl: string | undefined, file: URL = OPENAPI_PATH): Middleware<AppState> {
  const text = fs.readFileSync(file, 'utf8');
  return (ctx) => {
    ctx.type = 'application/yaml; charset=utf-8';
    ctx.body = text.replaceAll(SPEC_ORIGIN, publicBase(publicUrl, ctx.protocol, ctx.host));
  };
}
