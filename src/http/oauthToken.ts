import type { Middleware } from 'koa';
import { verifySecret } from '../core/credentials.js';
import { DomainError, type ErrorCode } from '../core/errors.js';
import { issueToken } from '../core/tokens.js';
import type { Sql } from '../db/sql.js';
import { findClient } from '../db/workspaces.js';
import { rejectUnreadBody } from './bodies.js';
import type { AppState } from './context.js';

export type TokenEndpointOptions = { sql: Sql; signingKey: Buffer; ttlSeconds: number };

// RFC 6749 names for our catalogue codes, so generic OAuth clients read the failure too.
const OAUTH_ERROR: Partial<Record<ErrorCode, string>> = {
  invalid_client: 'invalid_client',
  unsupported_grant_type: 'unsupported_grant_type',
  invalid_request: 'invalid_request',
};

const FORM_FIELDS = new Set(['grant_type', 'scope', 'client_id']);

/**
 * POST /oauth2/token, the client-credentials grant exactly as the official SDKs send it: HTTP Basic
 * client_id:client_secret and a form body grant_type=client_credentials (optional scope, which is
 * ignored, and client_id, which must then name the same client).
 */
export function oauthToken(options: TokenEndpointOptions): Middleware<AppState> {
  return async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      rejectUnreadBody(ctx);
      if (!ctx.is('application/x-www-form-urlencoded')) {
        throw new DomainError('unsupported_media_type', 'Send the token request as application/x-www-form-urlencoded.');
      }
      const form = readForm(ctx.request.body);
      const unknown = Object.keys(form).filter((field) => !FORM_FIELDS.has(field));
      if (unknown.length > 0) throw new DomainError('invalid_request', `Unknown form fields: ${unknown.join(', ')}.`);
      if (!form.grant_type) throw new DomainError('invalid_request', 'grant_type is required.');
      if (form.grant_type !== 'client_credentials') {
        throw new DomainError('unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
      }
      const credentials = basicCredentials(ctx.get('authorization'));
      if (!credentials) throw new DomainError('invalid_client', 'Client authentication is required (HTTP Basic).');
      if (form.client_id !== undefined && form.client_id !== credentials.clientId) {
        throw new DomainError('invalid_client', 'client_id does not match the authenticated client.');
      }
      const client = await findClient(options.sql, credentials.clientId);
      if (!client || !verifySecret(credentials.clientSecret, client.secretHash)) {
        throw new DomainError('invalid_client', 'Unknown client or wrong secret.');
      }
      const expiresAt = Math.floor(Date.now() / 1000) + options.ttlSeconds;
      ctx.body = {
        access_token: issueToken({ workspaceId: client.workspaceId, clientId: client.clientId, expiresAt },
          options.signingKey),
        token_type: 'Bearer',
        expires_in: options.ttlSeconds,
      };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      ctx.status = error.status;
      if (error.code === 'invalid_client') ctx.set('WWW-Authenticate', 'Basic realm="tally"');
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

function readForm(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object') return {};
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (typeof value === 'string') form[key] = value;
  return form;
}

function basicCredentials(header: string) {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return undefined; // malformed %-escapes: not credentials at all
  }
}
