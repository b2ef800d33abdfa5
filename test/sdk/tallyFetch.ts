// The fetch wrapper orval's generated client calls (its `mutator`): the base URL and token are
// the caller's choice, as in any client team's setup. Answers { data, status, headers }, the
// shape orval's fetch client types its responses with.

let baseUrl = '';
let authorization: string | undefined;

export function configureTallyFetch(options: { baseUrl: string; authorization?: string }): void {
  baseUrl = options.baseUrl;
  authorization = options.authorization;
}

export async function tallyFetch<T>(url: string, init: RequestInit): Promise<T> {
  const headers = new Headers(init.headers);
  if (authorization && !headers.has('authorization')) headers.set('authorization', authorization);
  const response = await fetch(`${baseUrl}${url}`, { ...init, headers });
  const text = await response.text();
  return { data: text ? JSON.parse(text) : undefined, status: response.status, headers: response.headers } as T;
}
