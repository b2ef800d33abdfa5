import fs from 'node:fs';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';

export const OPENAPI_PATH = new URL('../../spec/billing.openapi.yaml', import.meta.url);
export const SDL_PATH = new URL('../../spec/ledger.graphql', import.meta.url);

/** Serves a contract file read once at start; clients and codegen fetch them from the server. */
export function serveContract(file: URL, contentType: string): Middleware<AppState> {
  const text = fs.readFileSync(file, 'utf8');
  return (ctx) => {
    ctx.type = contentType;
    ctx.body = text;
  };
}
