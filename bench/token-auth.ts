import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openDatabase } from '../src/db/database.js';
import { createClient, createWorkspace } from '../src/db/provision.js';
import { tokenSigningKey } from '../src/db/workspaces.js';
import { silentLogger } from '../src/observability/log.js';
import { fetchToken } from '../test/support/token.js';
import { send } from './support/send.js';

// Token endpoint cost and its effect on everyone else: token requests/s alone, then the p99 of a
// GraphQL read while token requests run beside it. BENCH_BASELINE names another checkout (say a
// worktree of the commit before a change); both apps then run in this one process, over one
// database, in alternating rounds, so the ratio is not skewed by the shared machine's load.

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TOKEN_CLIENTS = 16;
const READ_CLIENTS = 8;
const GET_LEDGER = JSON.stringify({ query: 'query { ledger(ledger: { ik: "bench" }) { id name } }' });

type Variant = { name: string; url: string; server: http.Server };
type Round = {
  tokensPerSecond: number;
  readP99Ms: number;
  readP50Ms: number;
  readsPerSecond: number;
  tokensBesideReads: number;
  /** Wrong secrets are never remembered, so each pays a full scrypt: the worst case for everyone else. */
  readP99BesideWrongSecretsMs: number;
  wrongSecretsPerSecond: number;
};

async function main() {
  const database = await openDatabase({ ephemeral: true, dataDir: '', poolMax: 10, log: () => {} });
  const { sql } = database;
  const signingKey = await tokenSigningKey(sql);
  const roots = [['current', path.resolve(import.meta.dirname, '..')]];
  if (process.env.BENCH_BASELINE) roots.unshift(['baseline', path.resolve(process.env.BENCH_BASELINE)]);
  const variants: Variant[] = [];
  for (const [name, root] of roots) {
    const { createApp } = await import(pathToFileURL(path.join(root, 'src/app.ts')).href);
    const server = (await createApp({ sql, signingKey, tokenTtlSeconds: 3600, log: silentLogger })).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((resolve) => server.once('listening', resolve));
    variants.push({ name, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  }
  const workspaceId = await createWorkspace(sql, 'Bench');
  const client = await createClient(sql, workspaceId);
  const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const wrongBasic = `Basic ${Buffer.from(`${client.clientId}:not-the-secret`).toString('base64')}`;
  const token = await fetchToken(variants[0].url, client.clientId, client.clientSecret);
  await fetch(`${variants[0].url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'mutation { createLedger(ik: "bench", ledger: { name: "Bench" }) { __typename } }' }),
  });

  const rounds = new Map<string, Round[]>(variants.map((v) => [v.name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of variants) {
      const tokenTarget = {
        url: `${variant.url}/oauth2/token`,
        method: 'POST',
        body: 'grant_type=client_credentials',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        status: 200,
      };
      const wrongSecretTarget = {
        ...tokenTarget,
        headers: { ...tokenTarget.headers, authorization: wrongBasic },
        status: 401,
      };
      const readTarget = {
        url: `${variant.url}/graphql`,
        method: 'POST',
        body: GET_LEDGER,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        status: 200,
      };
      const alone = await load([{ target: tokenTarget, clients: TOKEN_CLIENTS }]);
      const mixed = await load([
        { target: tokenTarget, clients: TOKEN_CLIENTS },
        { target: readTarget, clients: READ_CLIENTS },
      ]);
      const attacked = await load([
        { target: wrongSecretTarget, clients: TOKEN_CLIENTS },
        { target: readTarget, clients: READ_CLIENTS },
      ]);
      const reads = mixed[1].latencies.sort((a, b) => a - b);
      const readsUnderAttack = attacked[1].latencies.sort((a, b) => a - b);
      const result: Round = {
        tokensPerSecond: alone[0].count / SECONDS,
        tokensBesideReads: mixed[0].count / SECONDS,
        readsPerSecond: reads.length / SECONDS,
        readP50Ms: reads[Math.floor(reads.length * 0.5)] ?? NaN,
        readP99Ms: reads[Math.floor(reads.length * 0.99)] ?? NaN,
        wrongSecretsPerSecond: attacked[0].count / SECONDS,
        readP99BesideWrongSecretsMs: readsUnderAttack[Math.floor(readsUnderAttack.length * 0.99)] ?? NaN,
      };
      rounds.get(variant.name)!.push(result);
      process.stdout.write(
        `round ${round} ${variant.name.padEnd(8)} tokens/s ${result.tokensPerSecond.toFixed(0)}  ` +
          `beside reads: tokens/s ${result.tokensBesideReads.toFixed(0)}, reads/s ${result.readsPerSecond.toFixed(0)}, ` +
          `read p50 ${result.readP50Ms.toFixed(1)} ms, p99 ${result.readP99Ms.toFixed(1)} ms; ` +
          `beside wrong secrets (${result.wrongSecretsPerSecond.toFixed(0)}/s): read p99 ${result.readP99BesideWrongSecretsMs.toFixed(1)} ms\n`,
      );
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const summary = [...rounds].map(([name, list]) => ({
    name,
    tokens_per_s: Math.round(median(list.map((r) => r.tokensPerSecond))),
    tokens_per_s_beside_reads: Math.round(median(list.map((r) => r.tokensBesideReads))),
    reads_per_s_beside_tokens: Math.round(median(list.map((r) => r.readsPerSecond))),
    read_p50_ms: Number(median(list.map((r) => r.readP50Ms)).toFixed(1)),
    read_p99_ms: Number(median(list.map((r) => r.readP99Ms)).toFixed(1)),
    wrong_secrets_per_s: Math.round(median(list.map((r) => r.wrongSecretsPerSecond))),
    read_p99_beside_wrong_secrets_ms: Number(median(list.map((r) => r.readP99BesideWrongSecretsMs)).toFixed(1)),
  }));
  const report = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    settings: {
      seconds: SECONDS,
      rounds: ROUNDS,
      token_clients: TOKEN_CLIENTS,
      read_clients: READ_CLIENTS,
      baseline: process.env.BENCH_BASELINE ? 'BENCH_BASELINE checkout, alternating rounds in this process' : 'none',
    },
    summary,
  };
  const dir = path.join(import.meta.dirname, 'results');
  fs.writeFileSync(path.join(dir, 'token-auth.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(
    path.join(dir, 'token-auth.md'),
    [
      '# Token endpoint beside GraphQL reads (`bench/token-auth.ts`)',
      '',
      `Run ${report.date} on ${JSON.stringify(report.machine)}; ${JSON.stringify(report.settings)}.`,
      '',
      '| Variant | Tokens/s alone | Tokens/s beside reads | Reads/s beside tokens | Read p50 ms | Read p99 ms | Wrong secrets/s | Read p99 ms beside wrong secrets |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...summary.map(
        (s) =>
          `| ${s.name} | ${s.tokens_per_s} | ${s.tokens_per_s_beside_reads} | ${s.reads_per_s_beside_tokens} | ` +
          `${s.read_p50_ms} | ${s.read_p99_ms} | ${s.wrong_secrets_per_s} | ${s.read_p99_beside_wrong_secrets_ms} |`,
      ),
      '',
    ].join('\n'),
  );
  for (const variant of variants) variant.server.close();
  await database.close();
  process.exit(0);
}

type Target = { url: string; method: string; body: string; headers: Record<string, string>; status: number };

/** Runs every group's clients at once for SECONDS; per group, completed requests and latencies. */
async function load(groups: { target: Target; clients: number }[]) {
  const deadline = performance.now() + SECONDS * 1000;
  return Promise.all(
    groups.map(async ({ target, clients }) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
      const latencies: number[] = [];
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (performance.now() < deadline) {
            const started = performance.now();
            const status = await send(agent, target);
            if (status !== target.status) throw new Error(`${target.url} answered ${status}`);
            latencies.push(performance.now() - started);
          }
        }),
      );
      agent.destroy();
      return { count: latencies.length, latencies };
    }),
  );
}

await main();
