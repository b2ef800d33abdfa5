// The dashboard reads through the public APIs with the signed-in client's token, so it sees
// exactly what that client may see. A 401 (token expired or revoked) ends the session.

import { basePath } from './basePath.js';
import { currentSession, signOut } from './session.js';

/** A refusal from the API, with its catalogue code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Thrown when there is no valid session; the shell answers it with the sign-in form. */
export class SignedOut extends Error {}

async function call(path: string, init: RequestInit): Promise<Response> {
  const session = currentSession();
  if (!session) throw new SignedOut();
  const response = await fetch(basePath + path, {
    ...init,
    credentials: 'omit', // the token is the only credential; no cookies, no browser prompts
    headers: { ...init.headers, authorization: `Bearer ${session.token}`, accept: 'application/json' },
  });
  if (response.status === 401) {
    signOut();
    throw new SignedOut();
  }
  return response;
}

type GraphqlAnswer<T> = { data?: T; errors?: { message: string; extensions?: { code?: string } }[] };

/** Runs a GraphQL query; any error in the answer is thrown (the dashboard's queries ask only for what exists). */
export async function graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await call('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await response.json()) as GraphqlAnswer<T>;
  const error = answer.errors?.[0];
  if (error || !answer.data)
    throw new ApiError(response.status, error?.extensions?.code ?? 'graphql_error', error?.message ?? 'No data.');
  return answer.data;
}

type BillingAnswer<T> = { data?: T; page_info?: { next_cursor?: string }; code?: string; message?: string };

/** Calls the billing API and returns its whole answer, or throws the typed refusal. */
async function billingAnswer<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<BillingAnswer<T>> {
  const response = await call(`/billing${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as BillingAnswer<T>;
  if (!response.ok) throw new ApiError(response.status, answer.code ?? 'error', answer.message ?? response.statusText);
  return answer;
}

/** Calls the billing API and returns its `{ data }`. */
export async function billing<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  return (await billingAnswer<T>(method, path, body)).data as T;
}

/** The billing search envelope: a page of results and the cursor of the next. */
export async function billingSearch<T>(path: string, body: object): Promise<{ data: T[]; next?: string }> {
  const answer = await billingAnswer<T[]>('POST', path, body);
  return { data: answer.data ?? [], next: answer.page_info?.next_cursor };
}
