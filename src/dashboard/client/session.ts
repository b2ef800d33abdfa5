// Signing in with an API client's id and secret: the OAuth2 token endpoint the SDKs use. Only the
// access token is kept, in sessionStorage: it ends with the browser session or its expiry.

import { basePath } from './basePath.js';

const STORAGE_KEY = 'tally.dashboard.session';

export type Session = { token: string; clientId: string; expiresAt: number };

export function currentSession(): Session | undefined {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (!raw) return undefined;
  const session = JSON.parse(raw) as Session;
  if (session.expiresAt <= Date.now()) {
    signOut();
    return undefined;
  }
  return session;
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

export async function signIn(clientId: string, clientSecret: string): Promise<Session> {
  const response = await fetch(`${basePath}/oauth2/token`, {
    method: 'POST',
    // Without credentials mode, a 401 with `WWW-Authenticate: Basic` would open the browser's own
    // password prompt instead of reaching this page (Fetch standard, HTTP-network-or-cache fetch).
    credentials: 'omit',
    headers: {
      authorization: `Basic ${base64(`${clientId}:${clientSecret}`)}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const body = (await response.json().catch(() => ({}))) as {
    access_token?: string;
    expires_in?: number;
    error_description?: string;
  };
  if (!response.ok || !body.access_token || !body.expires_in)
    throw new Error(body.error_description ?? `Sign-in failed (HTTP ${response.status}).`);
  const session = { token: body.access_token, clientId, expiresAt: Date.now() + body.expires_in * 1000 };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  return session;
}

/** Basic credentials are UTF-8 bytes in base64 (RFC 7617); btoa alone takes Latin-1 only. */
function base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}
