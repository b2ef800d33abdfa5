import type { Middleware } from 'koa';
import { secretVerifier } from '../core/credentials.js';
import { DomainError, type ErrorCode } from '../core/errors.js';
import { findUnstorableText } from '../core/text.js';
import { issueToken } from '../core/tokens.js';
import type { Sql } from '../db/sql.js';
import { findClient } from '../db/workspaces.js';
import { rejectUnreadBody } from './bodies.js';
import type { AppState } from './context.js';
import { toDomainError } from './errors.js';
import type { Logger } from '../observability/log.js';

export type TokenEndpointOptions = {
  sql: Sql;
  signingKey: Buffer;
  ttlSeconds: number;
  log: Logger;
  /** A workspace's sandbox clock, which its tokens' lifetime counts from; undefined: real time. */
  now?: (workspaceId: string) => Date | undefined;
};

// RFC 6749 §5.2 names for our catalogue codes, so generic OAuth clients read every failure too.
const OAUTH_ERROR: Partial<Record<ErrorCode, string>> = {
  invalid_client: 'invalid_client',
  unsupported_grant_type: 'unsupported_grant_type',
  internal_error: 'server_error',
  service_unavailable: 'temporarily_unavailable',
  deadline_exceeded: 'temporarily_unavailable',
};

const FORM_FIELDS = new Set(['grant_type', 'scope', 'client_id', 'client_secret']);

/**
 * POST /oauth2/token, the client-credentials grant as the official SDKs send it: HTTP Basic
 * client_id:client_secret and a form body grant_type=client_credentials (optional scope, which is
 * ignored, and client_id, which must then name the same client). The client may instead send
 * client_id and client_secret in the form body (RFC 6749 §2.3.1, client_secret_post); one
 * request uses one method, so Basic and a form client_secret together are invalid_request.
 * Every answer, success or failure, has the RFC 6749 shape; failures also carry our catalogue fields.
 */
export function oauthToken(options: TokenEndpointOptions): Middleware<AppState> {
  const verifySecret = secretVerifier();
  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      rejectUnreadBody(ctx);
      if (!ctx.is('application/x-www-form-urlencoded')) {
        throw new DomainError('unsupported_media_type', 'Send the token request as application/x-www-form-urlencoded.');
      }
      const form = readForm(ctx.request.body);
      if (!form.grant_type) throw new DomainError('invalid_request', 'grant_type is required.');
      if (form.grant_type !== 'client_credentials') {
        throw new DomainError('unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
      }
      const credentials = clientCredentials(ctx.get('authorization'), form);
      const client = await findClient(options.sql, credentials.clientId);
      if (!client || !(await verifySecret(client.clientId, credentials.clientSecret, client.secretHash))) {
        throw new DomainError('invalid_client', 'Unknown client or wrong secret.');
      }
      const now = options.now?.(client.workspaceId) ?? new Date();
      const expiresAt = Math.floor(now.getTime() / 1000) + options.ttlSeconds;
      ctx.body = {
        access_token: issueToken(
          { workspaceId: client.workspaceId, clientId: client.clientId, expiresAt },
          options.signingKey,
        ),
        token_type: 'Bearer',
        expires_in: options.ttlSeconds,
      };
    } catch (thrown) {
      const error = toDomainError(thrown);
      if (error.code === 'internal_error') {
        options.log.error('token request failed', {
          request_id: ctx.state.requestId,
          error: thrown instanceof Error ? thrown.stack : String(thrown),
        });
      }
      ctx.status = error.status;
      ctx.set('x-should-retry', String(error.retryable));
      if (error.code === 'invalid_client') ctx.set('WWW-Authenticate', 'Basic realm="tally"');
      if (error.retryable) ctx.set('Retry-After', '1');
      ctx.body = {
        error: OAUTH_ERROR[error.code] ?? 'invalid_request',
        error_description: error.message,
        code: error.code,
        message: error.message,
        retryable: error.retryable,
        request_id: ctx.state.requestId,
      };
    }
  };
}

/** The form as single string values; the contract's form is closed and every field appears once. */
function readForm(body: unknown): Record<string, string> {
  const fields = body && typeof body === 'object' ? Object.entries(body) : [];
  const unknown = fields.map(([key]) => key).filter((key) => !FORM_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new DomainError(
      'invalid_request',
      `Unknown form fields: ${unknown.map((key) => JSON.stringify(key)).join(', ')}.`,
    );
  }
  const repeated = fields.filter(([, value]) => typeof value !== 'string').map(([key]) => key);
  if (repeated.length > 0)
    throw new DomainError('invalid_request', `Form fields must appear once: ${repeated.join(', ')}.`);
  const form = Object.fromEntries(fields) as Record<string, string>;
  const unstorable = findUnstorableText(form, '/body');
  if (unstorable)
    throw new DomainError('invalid_request', `Form field ${unstorable.pointer.slice(6)} ${unstorable.message}.`);
  return form;
}

/** The client's credentials, from HTTP Basic or from the form body (never both). */
function clientCredentials(
  authorization: string,
  form: Record<string, string>,
): { clientId: string; clientSecret: string } {
  if (form.client_secret !== undefined) {
    if (authorization) {
      throw new DomainError(
        'invalid_request',
        'Authenticate the client one way: HTTP Basic, or client_id and client_secret in the form body, not both.',
      );
    }
    if (form.client_id === undefined)
      throw new DomainError('invalid_request', 'client_secret in the form body needs client_id beside it.');
    if (!form.client_id) throw new DomainError('invalid_client', 'client_id is empty.');
    return { clientId: form.client_id, clientSecret: form.client_secret };
  }
  const credentials = basicCredentials(authorization);
  if (form.client_id !== undefined && form.client_id !== credentials.clientId) {
    throw new DomainError('invalid_client', 'client_id does not match the authenticated client.');
  }
  return credentials;
}

const BASIC = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i;

/** HTTP Basic client credentials (RFC 6749 §2.3.1: each part form-urlencoded before joining). */
function basicCredentials(header: string): { clientId: string; clientSecret: string } {
  const match = BASIC.exec(header);
  if (!match) {
    throw new DomainError(
      'invalid_client',
      'Client authentication is required: HTTP Basic client_id:client_secret, or client_id and client_secret in the form body.',
    );
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  let credentials: { clientId: string; clientSecret: string } | undefined;
  try {
    if (colon > 0) {
      credentials = {
        clientId: decodeURIComponent(decoded.slice(0, colon)),
        clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
      };
    }
  } catch {
    // malformed %-escapes: not credentials at all
  }
  if (!credentials || findUnstorableText(credentials, '')) {
    throw new DomainError(
      'invalid_client',
      'The HTTP Basic credentials are malformed: expected base64(client_id:client_secret).',
    );
  }
  return credentials;
}
