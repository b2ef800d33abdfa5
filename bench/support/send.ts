import http from 'node:http';

export type Target = { url: string; method: string; headers: Record<string, string>; body?: string };

/** One request over a keep-alive agent; resolves with the status once the body is drained. */
export function send(agent: http.Agent, target: Target): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(target.url, { method: target.method, headers: target.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(target.body);
  });
}
