import type { Context as OperationContext } from 'openapi-backend';
import { DomainError } from '../core/errors.js';
import { findUnstorableText } from '../core/text.js';
import { rejectUnreadBody } from './bodies.js';
import type { AppContext } from './context.js';

// Checks every contract-driven REST API (billing, sandbox) makes of a request before its handler.

export function decodablePath(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** NUL and unpaired surrogates are refused in every text the request carries, before any handler. */
function rejectUnstorableText(c: OperationContext): void {
  const violation =
    findUnstorableText(c.request.requestBody, '/body') ??
    findUnstorableText(c.request.params, '/path') ??
    findUnstorableText(c.request.query, '/query');
  if (violation) {
    throw new DomainError('invalid_request', 'Text must be valid Unicode without NUL characters.', {
      violations: [violation],
    });
  }
}

/**
 * The body checks of a contract-driven request, once its route and caller are known: a body that
 * is not JSON, one that could not be read (malformed, too large), text no database can store.
 */
export function rejectBadBody(c: OperationContext, ctx: AppContext): void {
  if (hasUnreadableBody(ctx)) {
    throw new DomainError('unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json).');
  }
  rejectUnreadBody(ctx);
  rejectUnstorableText(c);
}

function hasUnreadableBody(ctx: AppContext): boolean {
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));
  return hasBody && ['POST', 'PATCH', 'PUT'].includes(ctx.method) && !ctx.is('application/json');
}
