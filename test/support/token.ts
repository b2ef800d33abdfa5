/** Obtains an access token the way the official SDKs do: HTTP Basic plus a client-credentials form. */
export async function fetchToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || !body.access_token)
    throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
