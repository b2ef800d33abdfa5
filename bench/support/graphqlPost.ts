import http from 'node:http';

// A GraphQL POST as the benchmarks send it, and the setup calls they make before measuring.

/** One POST with a bearer token; answers the status, the body and the server's own time (Server-Timing). */
export function postJson(
  agent: http.Agent,
  url: string,
  token: string,
  body: string,
): Promise<{ status: number; text: string; serverMs: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        const timing = /dur=([\d.]+)/.exec(String(res.headers['server-timing'] ?? ''));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, serverMs: timing ? Number(timing[1]) : NaN }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A setup call; any error, or an error union member, stops the benchmark. */
export async function gqlCall(baseUrl: string, token: string, query: string, variables?: Record<string, unknown>) {
  const { text } = await postJson(
    new http.Agent({ keepAlive: false }),
    `${baseUrl}/graphql`,
    token,
    JSON.stringify({ query, variables }),
  );
  const body = JSON.parse(text);
  if (body.errors || /"(BadRequestError|InternalError)"/.test(text)) throw new Error(text);
  return body;
}
