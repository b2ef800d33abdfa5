/** Posts one GraphQL operation as a client would and returns status and parsed body. */
export async function gql(
  baseUrl: string,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
) {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[] } };
}
